// Devices: the signed-in user's recorders by home (online, last seen, battery, storage, firmware), rename and remove,
// the homes (add, rename, make current, delete an empty one) and the user's device defaults (docs/devices.md).
import { api } from './api.js';
import { h, replace, when, announce } from './dom.js';
import { LANGUAGES, languageName } from './languages.js';

const TIERS = [['asr-fast', 'asr-fast (low latency)'], ['asr-pro', 'asr-pro (high accuracy)']];
const serialPath = (template, serial) => template.replace('{serial}', encodeURIComponent(serial));

/** "12.5 MB" for bytes. */
function size(bytes) {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes, unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit++; }
  return `${value >= 100 || unit === 0 ? Math.round(value) : value.toFixed(1).replace(/\.0$/, '')} ${units[unit]}`;
}

/** An inline rename: a text field and Save; Escape puts the old name back. */
function renameForm(id, label, current, save) {
  const input = h('input', { id, type: 'text', value: current, maxlength: 64, required: true });
  const form = h('form', { class: 'inline-form rename' },
    h('label', { for: id, class: 'visually-hidden' }, label), input,
    h('button', { type: 'submit' }, 'Save'));
  input.addEventListener('keydown', (event) => { if (event.key === 'Escape') input.value = current; });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (!name || name === current) return;
    try {
      await save(name);
    } catch (error) {
      announce(error.message);
    }
  });
  return form;
}

function deviceCard(device, homes, reload) {
  const report = device.report;
  const storage = report && report.storage_total > 0
    ? h('span', {}, `${size(report.storage_used)} of ${size(report.storage_total)} used `,
      h('progress', { max: report.storage_total, value: report.storage_used,
        'aria-label': `Storage of ${device.name}` }))
    : 'not reported';
  const fact = (name, value, key) => h('div', { 'data-fact': key }, h('dt', {}, name), h('dd', {}, value));
  const remove = h('button', { type: 'button', class: 'danger remove', 'aria-label': `Remove ${device.name}` },
    'Remove');
  remove.addEventListener('click', async () => {
    if (!confirm(`Remove ${device.name} (${device.serial})? Its synced recordings stay in your library. The device `
      + 'keeps its own recordings until it is unbound from the app next to it.')) return;
    try {
      await api('DELETE', serialPath('/open/partner/devices/{serial}', device.serial));
      announce(`${device.name} removed.`);
      await reload();
    } catch (error) {
      announce(error.message);
    }
  });
  const move = h('select', { id: `move-${device.serial}` }, homes.map((home) =>
    h('option', { value: home.home_id, selected: home.home_id === device.home_id }, home.name)));
  move.addEventListener('change', async () => {
    try {
      await api('PATCH', serialPath('/open/partner/devices/{serial}', device.serial), { home_id: move.value });
      announce(`${device.name} moved.`);
      await reload();
    } catch (error) {
      announce(error.message);
    }
  });
  return h('li', { class: 'card device', 'data-serial': device.serial },
    h('h4', { class: 'device-name' }, device.name,
      h('span', { class: 'badge ' + (device.online ? 'ok' : ''), 'data-online': String(device.online) },
        device.online ? 'Online' : 'Offline'),
      device.state === 'binding' ? h('span', { class: 'badge busy' }, 'binding') : null),
    h('p', { class: 'meta' }, device.model, ' · ', h('code', {}, device.serial)),
    h('dl', { class: 'facts' },
      fact('Last seen', device.last_seen_ms ? when(device.last_seen_ms) : 'never', 'last-seen'),
      fact('Battery', report ? `${report.battery} %${report.charging ? ' (charging)' : ''}` : 'not reported',
        'battery'),
      fact('Storage', storage, 'storage'),
      fact('Recordings on it', report ? String(report.recording_count) : 'not reported', 'recordings'),
      fact('Firmware', device.firmware, 'firmware'),
      fact('Its recordings', (device.auto_transcribe ? 'transcribed' : 'not transcribed')
        + (device.auto_transcribe && device.auto_summarize ? ' and summarized' : '')
        + `, ${languageName(device.language)}, ${device.transcription_model}`, 'settings')),
    h('div', { class: 'actions' },
      renameForm(`rename-${device.serial}`, `New name for ${device.name}`, device.name, async (name) => {
        await api('PATCH', serialPath('/open/partner/devices/{serial}', device.serial), { name });
        announce(`Renamed to ${name}.`);
        await reload();
      }),
      homes.length > 1 ? h('span', { class: 'field inline' },
        h('label', { for: `move-${device.serial}` }, 'Home'), move) : null,
      h('a', { href: '#/?source=' + encodeURIComponent('device:' + device.serial) }, 'Its recordings'),
      remove));
}

function homeSection(home, devices, homes, reload) {
  const mine = devices.filter((device) => device.home_id === home.home_id);
  const id = `home-${home.home_id}`;
  const current = h('button', { type: 'button', class: 'make-current',
    'aria-label': `Make ${home.name} the current home`, onclick: async () => {
      try {
        await api('PATCH', `/open/partner/homes/${encodeURIComponent(home.home_id)}`, { current: true });
        announce(`${home.name} is the current home.`);
        await reload();
      } catch (error) {
        announce(error.message);
      }
    } }, 'Make current');
  const remove = h('button', { type: 'button', class: 'danger delete-home', disabled: mine.length > 0 || homes.length < 2,
    title: mine.length > 0 ? 'Move or remove its devices first' : homes.length < 2 ? 'Your only home' : null,
    'aria-label': `Delete ${home.name}` }, 'Delete home');
  remove.addEventListener('click', async () => {
    if (!confirm(`Delete the home ${home.name}?`)) return;
    try {
      await api('DELETE', `/open/partner/homes/${encodeURIComponent(home.home_id)}`);
      announce(`${home.name} deleted.`);
      await reload();
    } catch (error) {
      announce(error.message);
    }
  });
  return h('section', { class: 'home', 'data-home': home.home_id, 'aria-labelledby': id + '-title' },
    h('div', { class: 'section-head' },
      h('h3', { id: id + '-title' }, home.name),
      home.current ? h('span', { class: 'badge ok', 'data-current': 'true' }, 'current home') : current,
      renameForm(`rename-${home.home_id}`, `New name for the home ${home.name}`, home.name, async (name) => {
        await api('PATCH', `/open/partner/homes/${encodeURIComponent(home.home_id)}`, { name });
        announce(`Renamed to ${name}.`);
        await reload();
      }),
      remove),
    mine.length === 0
      ? h('p', { class: 'muted empty' }, 'No devices here. Bind one from the Earshot app next to it, or with ',
        h('code', {}, 'earshot device bind'), '.')
      : h('ul', { class: 'devices' }, mine.map((device) => deviceCard(device, homes, reload))));
}

function defaultsForm(defaults) {
  const check = (name, label) => h('p', { class: 'field inline' },
    h('input', { id: 'default-' + name, name, type: 'checkbox', checked: defaults[name] }),
    h('label', { for: 'default-' + name }, label));
  const languages = LANGUAGES.includes(defaults.language) || defaults.language === 'auto'
    ? ['auto', ...LANGUAGES] : ['auto', defaults.language, ...LANGUAGES];
  const status = h('p', { role: 'status', id: 'defaults-status' });
  const error = h('p', { class: 'error', role: 'alert', id: 'defaults-error' });
  const form = h('form', { class: 'card defaults', id: 'defaults-form', 'aria-labelledby': 'defaults-title' },
    h('h2', { id: 'defaults-title' }, 'What your devices do with a recording'),
    h('p', { class: 'muted' }, 'For every device that has no setting of its own; new recordings only.'),
    check('auto_transcribe', 'Transcribe each synced recording'),
    check('auto_summarize', 'Summarize it once transcribed'),
    h('p', { class: 'field inline' }, h('label', { for: 'default-language' }, 'Language'),
      h('select', { id: 'default-language', name: 'language' }, languages.map((code) =>
        h('option', { value: code, selected: code === defaults.language }, languageName(code))))),
    h('p', { class: 'field inline' }, h('label', { for: 'default-model' }, 'Speech tier'),
      h('select', { id: 'default-model', name: 'transcription_model' }, TIERS.map(([value, label]) =>
        h('option', { value, selected: value === defaults.transcription_model }, label)))),
    h('p', {}, h('button', { type: 'submit', class: 'primary' }, 'Save defaults')), status, error);
  const summarize = form.elements.auto_summarize;
  const follow = () => { summarize.disabled = !form.elements.auto_transcribe.checked; };
  form.elements.auto_transcribe.addEventListener('change', follow);
  follow();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    status.textContent = '';
    try {
      const saved = await api('PATCH', '/open/partner/device-defaults', {
        auto_transcribe: form.elements.auto_transcribe.checked,
        auto_summarize: form.elements.auto_transcribe.checked && summarize.checked,
        language: form.elements.language.value, transcription_model: form.elements.transcription_model.value,
      });
      status.textContent = `Saved: ${saved.auto_transcribe ? 'transcribe' : 'do not transcribe'}`
        + `${saved.auto_summarize ? ' and summarize' : ''}, ${languageName(saved.language)}, `
        + `${saved.transcription_model}.`;
    } catch (failure) {
      error.textContent = failure.message;
    }
  });
  return form;
}

/** The Devices page. Returns the page's clean-up. */
export async function devicesPage(main) {
  const homesBlock = h('section', { 'aria-labelledby': 'homes-title' });
  const defaultsBlock = h('div');
  replace(main, h('h1', {}, 'Devices'), homesBlock, defaultsBlock);

  const addError = h('p', { class: 'error', role: 'alert', id: 'home-error' });
  const add = h('form', { class: 'inline-form', id: 'home-form' },
    h('label', { for: 'home-name' }, 'New home'),
    h('input', { id: 'home-name', name: 'name', type: 'text', maxlength: 64, required: true, placeholder: 'Office' }),
    h('button', { type: 'submit' }, 'Add home'));
  add.addEventListener('submit', async (event) => {
    event.preventDefault();
    addError.textContent = '';
    try {
      await api('POST', '/open/partner/homes', { name: add.elements.name.value.trim() });
      add.reset();
      await reload();
    } catch (error) {
      addError.textContent = error.message;
    }
  });
  const list = h('div', { id: 'homes' });

  async function reload() {
    try {
      const [{ homes }, { devices }] = await Promise.all([
        api('GET', '/open/partner/homes'), api('GET', '/open/partner/devices')]);
      replace(list, homes.map((home) => homeSection(home, devices, homes, reload)));
      list.dataset.loaded = 'true';
    } catch (error) {
      replace(list, h('p', { class: 'error', role: 'alert' }, error.message));
    }
  }

  replace(homesBlock, h('h2', { id: 'homes-title' }, 'Your devices by home'), list, add, addError);
  const [, defaults] = await Promise.all([reload(),
    api('GET', '/open/partner/device-defaults').catch((error) => error)]);
  replace(defaultsBlock, defaults instanceof Error
    ? h('p', { class: 'error', role: 'alert' }, defaults.message) : defaultsForm(defaults));
  return null;
}
