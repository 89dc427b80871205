// The library: records newest first with filters and stable cursor paging, one search box, and upload.
import { api } from './api.js';
import { h, replace, clock, when, snippet } from './dom.js';
import { uploadFile } from './upload.js';

const TASK_NAMES = { 0: 'Transcribing', 1: 'Summarizing', 2: 'Translating' };

// "Transcribing 40 %" for each task still queued or running (lists carry them as running_tasks).
function taskBadge(task) {
  const name = TASK_NAMES[task.task_type] ?? 'Working';
  const text = task.status === 'PENDING' ? `${name} (queued)` : `${name} ${task.progress} %`;
  return h('span', { class: 'badge busy', 'data-task': task.task_id }, text);
}

/** The user's devices by serial (serial → name), read once per page; empty when they cannot be read. */
export function deviceNames() {
  return api('GET', '/open/partner/devices')
    .then(({ devices }) => new Map(devices.map((device) => [device.serial, device.name])))
    .catch(() => new Map());
}

/**
 * How a record's source reads: "upload", "phone", "live session", or the device's name (its serial once it is
 * removed).
 */
export function sourceText(source, devices) {
  if (source.startsWith('device:')) {
    const serial = source.slice('device:'.length);
    return devices.get(serial) ?? `device ${serial}`;
  }
  if (source === 'live') return 'live session';
  return source === 'import' ? 'upload' : source;
}

function badges(record, devices) {
  return h('span', { class: 'badges' },
    (record.running_tasks ?? []).map(taskBadge),
    h('span', { class: 'badge source', 'data-source': record.source }, sourceText(record.source, devices)),
    record.has_transcript
      ? h('span', { class: 'badge ok' }, 'transcript') : h('span', { class: 'badge' }, 'no transcript'),
    record.has_summary ? h('span', { class: 'badge ok' }, 'summary') : null,
    (record.translations ?? []).map((language) => h('span', { class: 'badge ok' }, language)));
}

let devices = new Map(); // serial → name, for the source badges of this page

function recordItem(record, extra) {
  return h('li', { class: 'record', 'data-record': record.record_id, 'data-time': record.record_time_ms },
    h('a', { href: `#/records/${encodeURIComponent(record.record_id)}`, class: 'title' }, record.title),
    h('span', { class: 'meta' }, when(record.record_time_ms), ' · ', clock(record.duration_ms)),
    badges(record, devices),
    record.tags.length ? h('span', { class: 'tags' }, record.tags.map((tag) =>
      h('a', { href: '#/?tag=' + encodeURIComponent(tag), class: 'tag' }, '#' + tag))) : null,
    extra);
}

function searchForm(query) {
  return h('form', { role: 'search', class: 'search', action: '#' },
    h('label', { for: 'q', class: 'visually-hidden' }, 'Search titles, tags and transcripts'),
    h('input', { id: 'q', name: 'q', type: 'search', value: query.get('q') ?? '',
      placeholder: 'Search titles, tags and transcripts' }),
    h('button', { type: 'submit' }, 'Search'));
}

function filterForm(query) {
  const input = (name, label, type) => h('p', { class: 'field inline' },
    h('label', { for: 'filter-' + name }, label),
    h('input', { id: 'filter-' + name, name, type, value: query.get(name) ?? '' }));
  return h('details', { class: 'filters', open: ['tag', 'source', 'from', 'to'].some((k) => query.get(k)) },
    h('summary', {}, 'Filters'),
    h('form', { class: 'filter-form' },
      input('tag', 'Tag', 'text'),
      h('p', { class: 'field inline' }, h('label', { for: 'filter-source' }, 'Source'),
        h('select', { id: 'filter-source', name: 'source' },
          [['', 'Any'], ['import', 'Upload'], ['phone', 'Phone'], ['live', 'Live sessions'],
            ['device', 'Recorder devices']].map(([value, label]) =>
            h('option', { value, selected: (query.get('source') ?? '') === value }, label)))),
      input('from', 'From', 'date'), input('to', 'To', 'date'),
      h('button', { type: 'submit' }, 'Apply')));
}

function uploadZone(navigate) {
  const input = h('input', { id: 'upload-file', type: 'file', class: 'visually-hidden',
    accept: 'audio/*,video/*,.m4a,.mp3,.wav,.ogg,.opus,.flac,.webm,.aac,.amr' });
  const speakers = h('input', { id: 'upload-speakers', type: 'checkbox', checked: true });
  const progress = h('progress',
    { id: 'upload-progress', max: 100, value: 0, hidden: true, 'aria-label': 'Upload progress' });
  const status = h('p', { id: 'upload-status', role: 'status' });
  const error = h('p', { id: 'upload-error', class: 'error', role: 'alert' });
  const zone = h('section', { class: 'upload', id: 'upload', 'aria-labelledby': 'upload-title' },
    h('h2', { id: 'upload-title' }, 'Add a recording'),
    h('p', {}, 'Drop an audio file here, or ',
      h('label', { for: 'upload-file', class: 'button', tabindex: 0, id: 'upload-choose' }, 'choose a file'), '.'),
    input,
    h('p', { class: 'field inline' }, speakers, h('label', { for: 'upload-speakers' }, 'Tell speakers apart')),
    progress, status, error);
  const start = async (file) => {
    error.textContent = '';
    progress.hidden = false;
    progress.value = 0;
    try {
      const record = await uploadFile(file, {
        diarize: speakers.checked,
        onProgress: (fraction, text) => { progress.value = Math.round(fraction * 100); status.textContent = text; },
      });
      navigate(`#/records/${encodeURIComponent(record.record_id)}`);
    } catch (failure) {
      progress.hidden = true;
      status.textContent = '';
      error.textContent = `${file.name}: ${failure.message}`;
    }
  };
  input.addEventListener('change', () => { if (input.files[0]) start(input.files[0]); });
  zone.querySelector('label.button').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); input.click(); }
  });
  zone.addEventListener('dragover', (event) => { event.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    const file = event.dataTransfer.files[0];
    if (file) start(file);
  });
  return zone;
}

/** One option per device in the source filter (a group after "Recorder devices"), the chosen one selected. */
function deviceOptions(filters, query) {
  const chosen = query.get('source');
  const options = [...devices].map(([serial, name]) =>
    h('option', { value: 'device:' + serial, selected: chosen === 'device:' + serial }, name));
  if (chosen?.startsWith('device:') && !devices.has(chosen.slice('device:'.length))) {
    options.push(h('option', { value: chosen, selected: true }, sourceText(chosen, devices)));
  }
  if (options.length) {
    filters.querySelector('#filter-source').append(h('optgroup', { label: 'One device' }, options));
  }
}

export async function libraryPage(main, query, { navigate }) {
  const list = h('ul', { class: 'records', id: 'records', 'aria-live': 'polite' });
  const more = h('p', { class: 'paging' });
  const heading = h('h1', { id: 'library-title' }, query.get('q') ? `Search: ${query.get('q')}` : 'Library');
  const search = searchForm(query);
  const filters = filterForm(query);
  replace(main, h('div', { class: 'library' }, heading, search, filters, uploadZone(navigate),
    h('section', { 'aria-labelledby': 'library-title' }, list, more)));

  search.addEventListener('submit', (event) => {
    event.preventDefault();
    const q = search.elements.q.value.trim();
    navigate(q ? '#/?q=' + encodeURIComponent(q) : '#/');
  });
  filters.querySelector('form').addEventListener('submit', (event) => {
    event.preventDefault();
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(event.target)) if (value) params.set(name, value);
    navigate('#/?' + params);
  });

  let timer = null;
  try {
    // The device names are read once the first page is shown, so they never hold it up: device records show the
    // names known from the last visit (or the serial) until they arrive.
    const named = () => deviceNames().then((names) => {
      devices = names;
      for (const badge of list.querySelectorAll('.badge.source[data-source^="device:"]')) {
        badge.textContent = sourceText(badge.dataset.source, devices);
      }
      deviceOptions(filters, query);
    });
    if (query.get('q')) {
      await showHits(list, more, query);
      named();
    } else {
      await showPage(list, more, query, null);
      named();
      timer = setInterval(() => refreshRunning(list).then((busy) => {
        if (!busy) { clearInterval(timer); timer = null; }
      }), 3000);
    }
  } catch (error) {
    replace(list, h('li', { class: 'error', role: 'alert' }, error.message));
  }
  return () => { if (timer) clearInterval(timer); };
}

// Re-reads the listed records that have running tasks and redraws them; true while any task is still running.
async function refreshRunning(list) {
  const busy = [...list.querySelectorAll('li.record')].filter((item) => item.querySelector('.badge.busy'));
  if (!busy.length) return false;
  const oldest = Math.min(...busy.map((item) => Number(item.dataset.time)));
  const params = new URLSearchParams({ limit: '100', from: String(oldest) });
  const page = await api('GET', '/open/partner/records?' + params);
  const fresh = new Map(page.records.map((record) => [record.record_id, record]));
  let running = false;
  for (const item of busy) {
    const record = fresh.get(item.dataset.record);
    if (!record) continue;
    item.replaceWith(recordItem(record));
    running ||= (record.running_tasks ?? []).length > 0;
  }
  return running;
}

async function showPage(list, more, query, cursor) {
  const params = new URLSearchParams({ limit: '50' });
  for (const name of ['tag', 'source', 'from', 'to']) if (query.get(name)) params.set(name, query.get(name));
  if (cursor) params.set('cursor', cursor);
  const page = await api('GET', '/open/partner/records?' + params);
  if (!cursor) list.replaceChildren();
  if (!page.records.length && !cursor) {
    const filtered = ['tag', 'source', 'from', 'to'].some((name) => query.get(name));
    list.append(h('li', { class: 'empty' },
      filtered ? 'No recordings match these filters.' : 'No recordings yet. Add one above.'));
  }
  for (const record of page.records) list.append(recordItem(record));
  list.dataset.loaded = 'true';
  replace(more, page.next_cursor ? h('button', { type: 'button', id: 'more', onclick: async (event) => {
    event.target.disabled = true;
    await showPage(list, more, query, page.next_cursor);
  } }, 'Show older recordings') : null);
}

async function showHits(list, more, query, offset = 0) {
  const params = new URLSearchParams({ q: query.get('q'), limit: '20' });
  if (offset) params.set('offset', String(offset));
  const results = await api('GET', '/open/partner/records/search?' + params);
  if (!offset) list.replaceChildren();
  if (!results.hits.length && !offset) list.append(h('li', { class: 'empty' }, 'Nothing matches.'));
  for (const hit of results.hits) {
    const matches = h('ul', { class: 'matches' }, hit.matches.map((match) => {
      const target = `#/records/${encodeURIComponent(hit.record.record_id)}`
        + (match.start_ms != null ? `?t=${match.start_ms}` : '');
      return h('li', {}, h('a', { href: target, class: 'hit' },
        match.start_ms != null
          ? h('span', { class: 'time' }, clock(match.start_ms)) : h('span', { class: 'field-name' }, match.field),
        ' ', snippet(match.snippet)));
    }));
    list.append(recordItem(hit.record, matches));
  }
  list.dataset.loaded = 'true';
  replace(more, results.next_offset ? h('button', { type: 'button', id: 'more', onclick: async (event) => {
    event.target.disabled = true;
    await showHits(list, more, query, results.next_offset);
  } }, 'More results') : null);
}
