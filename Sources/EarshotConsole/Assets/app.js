// The console's shell: who is signed in, the routes (#/…), the header.
import { api, whenSignedOut } from './api.js';
import { signInPage, signUpPage, signOut } from './auth.js';
import { libraryPage } from './library.js';
import { recordPage } from './record.js';
import { qualityPage, evaluationPage } from './quality.js';
import { devicesPage } from './devices.js';
import { livePage } from './live.js';
import { conversationPage } from './conversation.js';
import { adminPage } from './admin.js';
import { announce } from './dom.js';

const main = document.getElementById('main');
let account = null;
let notice = '';
let leave = null; // the current page's clean-up (stops polling and players)

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function signedIn(who) {
  account = who;
  document.getElementById('bar').hidden = false;
  document.getElementById('who').textContent = who.nickname || who.email || who.phone || '';
  document.getElementById('nav-admin').hidden = !who.instance_owner;
}

function signedOut(message) {
  account = null;
  notice = message;
  document.getElementById('bar').hidden = true;
  navigate('#/sign-in');
}

whenSignedOut(() => {
  if (account) signedOut('Your session has ended. Sign in again.');
});

/** "#/records/rec_1?t=5000" → {path: ['records', 'rec_1'], query: URLSearchParams}. */
function parse(hash) {
  const [path, query] = hash.replace(/^#\/?/, '').split('?');
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(query ?? '') };
}

async function route() {
  if (leave) { leave(); leave = null; }
  const { path, query } = parse(location.hash);
  const context = { navigate, signedIn, notice, account };
  notice = '';
  if (path[0] === 'sign-in') return signInPage(main, context);
  if (path[0] === 'sign-up') return signUpPage(main, context);
  if (!account) {
    try {
      signedIn(await api('GET', '/open/accounts/me', undefined, { open: true }));
    } catch {
      return navigate('#/sign-in');
    }
  }
  context.account = account;
  for (const link of document.querySelectorAll('#bar nav a')) {
    if (link.getAttribute('href') === '#/' + (path[0] ?? '')) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (path[0] === 'records' && path[1]) leave = await recordPage(main, path[1], query, context);
  else if (path[0] === 'devices') leave = await devicesPage(main, context);
  else if (path[0] === 'live' && path[1] === 'conversation') leave = await conversationPage(main, context);
  else if (path[0] === 'live') leave = await livePage(main, context);
  else if (path[0] === 'admin') leave = await adminPage(main, context);
  else if (path[0] === 'quality' && path[1]) leave = await evaluationPage(main, path[1], context);
  else if (path[0] === 'quality') leave = await qualityPage(main, query, context);
  else leave = await libraryPage(main, query, context);
  main.focus({ preventScroll: true });
}

document.getElementById('sign-out').addEventListener('click', async () => {
  try {
    await signOut();
  } catch (error) {
    announce(error.message);
  }
  signedOut('You are signed out.');
});

window.addEventListener('hashchange', route);
route();
