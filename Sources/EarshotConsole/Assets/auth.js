// Sign in, sign up (with the emailed or texted code) and sign out, as cookie sessions (docs/accounts.md).
import { api } from './api.js';
import { h, replace } from './dom.js';

/** {email} or {phone} for what the person typed. */
function address(text) {
  const value = text.trim();
  return /^\+?[0-9 ().-]+$/.test(value) && /[0-9]/.test(value) ? { phone: value } : { email: value };
}

function field(label, attributes) {
  const id = 'f-' + attributes.name;
  return h('p', { class: 'field' }, h('label', { for: id }, label), h('input', { id, ...attributes }));
}

function alertBox() {
  return h('p', { class: 'error', role: 'alert', id: 'form-error' });
}

/** Runs `action` for a form, showing the server's message in the form's alert on failure. */
function submitting(form, alert, action) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    alert.textContent = '';
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      await action(new FormData(form));
    } catch (error) {
      alert.textContent = error.message;
    } finally {
      button.disabled = false;
    }
  });
}

export function signInPage(main, { notice, navigate, signedIn }) {
  const alert = alertBox();
  const form = h('form', { class: 'card', 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Sign in to Earshot'),
    notice ? h('p', { class: 'notice', role: 'status' }, notice) : null,
    field('Email or phone', { name: 'address', type: 'text', autocomplete: 'username', required: true }),
    field('Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
    alert,
    h('p', {}, h('button', { type: 'submit', class: 'primary' }, 'Sign in')),
    h('p', { class: 'muted' }, 'No account yet? ', h('a', { href: '#/sign-up' }, 'Create one')));
  submitting(form, alert, async (data) => {
    const answer = await api('POST', '/open/accounts/sign-in',
      { ...address(data.get('address')), password: data.get('password'), session: 'cookie', device: 'Web console' },
      { open: true });
    signedIn(answer.account);
    navigate('#/');
  });
  replace(main, form);
  form.querySelector('input').focus();
}

export function signUpPage(main, { navigate, signedIn }) {
  const alert = alertBox();
  const form = h('form', { class: 'card', 'aria-labelledby': 'sign-up-title' },
    h('h1', { id: 'sign-up-title' }, 'Create your Earshot account'),
    field('Email or phone', { name: 'address', type: 'text', autocomplete: 'username', required: true }),
    field('Name (optional)', { name: 'nickname', type: 'text', autocomplete: 'nickname', maxlength: 64 }),
    field('Password (at least 8 characters)',
      { name: 'password', type: 'password', autocomplete: 'new-password', minlength: 8, required: true }),
    alert,
    h('p', {}, h('button', { type: 'submit', class: 'primary' }, 'Create account')),
    h('p', { class: 'muted' }, 'Have an account? ', h('a', { href: '#/sign-in' }, 'Sign in')));
  submitting(form, alert, async (data) => {
    const who = address(data.get('address'));
    const nickname = data.get('nickname').trim();
    const ticket = await api('POST', '/open/accounts/sign-up',
      { ...who, password: data.get('password'), ...(nickname ? { nickname } : {}) }, { open: true });
    verifyStep(main, who, ticket, { navigate, signedIn });
  });
  replace(main, form);
  form.querySelector('input').focus();
}

function verifyStep(main, who, ticket, { navigate, signedIn }) {
  const alert = alertBox();
  const form = h('form', { class: 'card', 'aria-labelledby': 'verify-title' },
    h('h1', { id: 'verify-title' }, 'Enter your code'),
    h('p', {}, `We sent a 6-digit code to ${ticket.destination}. `
      + `It expires in ${Math.round(ticket.expires_in / 60)} minutes.`),
    field('Code', { name: 'code', type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code',
      pattern: '[0-9]{6}', maxlength: 6, required: true }),
    alert,
    h('p', {}, h('button', { type: 'submit', class: 'primary' }, 'Verify and sign in')));
  submitting(form, alert, async (data) => {
    const answer = await api('POST', '/open/accounts/verify',
      { ...who, code: data.get('code').trim(), session: 'cookie', device: 'Web console' }, { open: true });
    signedIn(answer.account);
    navigate('#/');
  });
  replace(main, form);
  form.querySelector('input').focus();
}

export async function signOut() {
  await api('POST', '/open/accounts/sign-out');
}
