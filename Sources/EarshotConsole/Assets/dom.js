// Small DOM helpers. Text always goes in as text nodes: nothing from the server is parsed as HTML.

/** Makes an element: h('a', {href: '#/'}, 'Library'). Attributes starting with "on" become listeners. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the contents of `element`. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

/** "m:ss" or "h:mm:ss" for a time in milliseconds. */
export function clock(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600), minutes = Math.floor((total % 3600) / 60), seconds = total % 60;
  const ss = String(seconds).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${ss}` : `${minutes}:${ss}`;
}

/** A local date and time for Unix milliseconds. */
export function when(ms) {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Announces `text` to screen readers and shows it briefly. */
export function announce(text) {
  const status = document.getElementById('status');
  status.textContent = text;
  clearTimeout(announce.timer);
  announce.timer = setTimeout(() => { status.textContent = ''; }, 5000);
}

/**
 * A search snippet as nodes. The server sends snippets HTML-escaped with hits in <em>…</em>; only those two tags
 * are honoured, every other character is shown as text.
 */
export function snippet(html) {
  const parts = html.split(/(<em>|<\/em>)/);
  const nodes = [];
  let inHit = false;
  for (const part of parts) {
    if (part === '<em>') { inHit = true; continue; }
    if (part === '</em>') { inHit = false; continue; }
    const text = unescape(part);
    nodes.push(inHit ? h('mark', {}, text) : text);
  }
  return nodes;
}

function unescape(text) {
  return text.replace(/&(lt|gt|quot|#39|apos|amp);/g, (_, name) =>
    ({ lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", amp: '&' })[name]);
}
