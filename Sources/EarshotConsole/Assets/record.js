// One record: the audio with its wave, the transcript sentence by sentence (click to seek, the playing sentence
// highlighted and followed), speakers (rename inline), summary, translations side by side, tasks (re-run with
// progress), exports, title and tags, delete.
import { api, url } from './api.js';
import { h, replace, clock, when, announce } from './dom.js';
import { decodeEnvelope, attachWave } from './wave.js';
import { deviceNames, sourceText } from './library.js';
import { LANGUAGES } from './languages.js';

const FINAL = new Set(['SUCCESS', 'FAILURE', 'REVOKED']);
const TASK_NAMES = ['Transcription', 'Summary', 'Translation'];

export async function recordPage(main, id, query, { navigate }) {
  const path = `/open/partner/records/${encodeURIComponent(id)}`;
  let detail;
  try {
    detail = await api('GET', path);
  } catch (error) {
    replace(main, h('section', { class: 'card' },
      h('h1', {}, error.status === 404 ? 'Not found' : 'This record could not be shown'),
      h('p', { role: 'alert' },
        error.status === 404 ? 'There is no recording with this id in your library.' : error.message),
      h('p', {}, h('a', { href: '#/' }, 'Back to the library'))));
    return () => {};
  }
  // A device's recording names its device (the registry's name; the serial once the device is removed).
  const devices = detail.record.source.startsWith('device:') ? await deviceNames() : new Map();

  const audio = h('audio', { id: 'player', controls: true, preload: 'metadata', src: url(path + '/audio'),
    'aria-label': 'Recording' });
  const stops = [];
  let poll = null;
  let left = false;
  let followPausedUntil = 0;

  const header = h('header', { class: 'record-head' });
  const waveBox = h('div', { class: 'wave-box' });
  const transcript = h('section', { class: 'transcript', id: 'transcript', 'aria-labelledby': 'transcript-title' });
  const side = h('div', { class: 'side' });
  replace(main, h('article', { class: 'record-page' },
    h('p', {}, h('a', { href: '#/' }, '← Library')),
    header, h('div', { class: 'player' }, audio, waveBox),
    h('div', { class: 'columns' }, transcript, side)));

  const seek = (ms) => {
    audio.currentTime = ms / 1000;
    if (audio.paused) audio.play().catch(() => {}); // autoplay may be refused; the position is set either way
  };

  function renderHeader() {
    const record = detail.record;
    const title = h('h1', { id: 'record-title' }, record.title);
    const edit = h('button', { type: 'button', id: 'edit-title' }, 'Edit title and tags');
    edit.addEventListener('click', () => editHeader());
    replace(header, title,
      h('p', { class: 'meta' }, when(record.record_time_ms), ' · ', clock(record.duration_ms), ' · ',
        h('span', { id: 'record-source', 'data-source': record.source }, sourceText(record.source, devices)),
        record.language ? ' · ' + record.language : ''),
      record.tags.length
        ? h('p', { class: 'tags', id: 'record-tags' }, record.tags.map((tag) => h('span', { class: 'tag' }, '#' + tag)))
        : null,
      h('p', { class: 'actions' }, edit, exportsMenu(),
        h('button', { type: 'button', id: 'delete', class: 'danger', onclick: remove }, 'Delete')));
  }

  function editHeader() {
    const record = detail.record;
    const error = h('p', { class: 'error', role: 'alert' });
    const form = h('form', { class: 'card', id: 'edit-form' },
      h('p', { class: 'field' }, h('label', { for: 'edit-title-input' }, 'Title'),
        h('input', { id: 'edit-title-input', name: 'title', value: record.title, required: true, maxlength: 200 })),
      h('p', { class: 'field' }, h('label', { for: 'edit-tags-input' }, 'Tags (comma-separated)'),
        h('input', { id: 'edit-tags-input', name: 'tags', value: record.tags.join(', ') })),
      error,
      h('p', {}, h('button', { type: 'submit', class: 'primary' }, 'Save'), ' ',
        h('button', { type: 'button', onclick: renderHeader }, 'Cancel')));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const tags = form.elements.tags.value.split(',').map((t) => t.trim()).filter(Boolean);
      try {
        detail = await api('PATCH', path, { title: form.elements.title.value.trim(), tags });
        renderHeader();
        announce('Saved.');
      } catch (failure) {
        error.textContent = failure.message; // the form stays open with what was typed
      }
    });
    form.addEventListener('keydown', (event) => { if (event.key === 'Escape') renderHeader(); });
    replace(header, form);
    form.elements.title.focus();
  }

  function exportsMenu() {
    return h('span', { class: 'exports' }, 'Export: ', ['txt', 'srt', 'vtt', 'json', 'md'].map((format) =>
      [h('a', { href: url(`${path}/export?format=${format}`), download: `${detail.record.title}.${format}`,
        id: 'export-' + format }, format), ' ']));
  }

  async function remove() {
    const question = `Delete "${detail.record.title}" with its transcript, notes and audio? This cannot be undone.`;
    if (!window.confirm(question)) {
      return;
    }
    try {
      await api('DELETE', path);
      announce('Deleted.');
      navigate('#/');
    } catch (error) {
      announce(error.message);
    }
  }

  function renderWave() {
    if (!detail.envelope) { replace(waveBox); return; }
    const canvas = h('canvas', { id: 'wave', class: 'wave', tabindex: 0, role: 'slider',
      'aria-label': 'Waveform: click to seek',
      'aria-valuemin': 0, 'aria-valuemax': Math.round(detail.record.duration_ms / 1000), 'aria-valuenow': 0 });
    replace(waveBox, canvas);
    stops.push(attachWave(canvas, decodeEnvelope(detail.envelope.data), audio));
    const now = () => canvas.setAttribute('aria-valuenow', String(Math.round(audio.currentTime)));
    audio.addEventListener('timeupdate', now);
    stops.push(() => audio.removeEventListener('timeupdate', now));
  }

  function renderTranscript() {
    const sentences = detail.transcript?.sentences ?? [];
    if (!sentences.length) {
      replace(transcript, h('h2', { id: 'transcript-title' }, 'Transcript'),
        h('p', { class: 'muted', id: 'no-transcript' }, running(0) ? 'Transcribing…' : 'No transcript yet.'));
      return;
    }
    const list = h('ol', { class: 'sentences' }, sentences.map((sentence, index) =>
      h('li', {}, h('button', { type: 'button', class: 'sentence',
        dataset: { start: sentence.start_ms, end: sentence.end_ms, index },
        'aria-label': `${clock(sentence.start_ms)}${sentence.speaker ? ', ' + sentence.speaker : ''}: ${sentence.text}`,
        onclick: () => seek(sentence.start_ms) },
      h('span', { class: 'time' }, clock(sentence.start_ms)),
      sentence.speaker ? h('span', { class: 'speaker' }, sentence.speaker) : null,
      h('span', { class: 'text' }, sentence.text)))));
    replace(transcript, h('h2', { id: 'transcript-title' }, 'Transcript'),
      h('p', { class: 'muted' }, 'Click a sentence to play from there.'), list);
  }

  function highlight() {
    const ms = audio.currentTime * 1000;
    let current = null;
    for (const button of transcript.querySelectorAll('.sentence')) {
      const on = ms >= Number(button.dataset.start) && ms < Number(button.dataset.end);
      button.classList.toggle('playing', on);
      if (on) {
        button.setAttribute('aria-current', 'true');
        current = button;
      } else {
        button.removeAttribute('aria-current');
      }
    }
    if (current && !audio.paused && Date.now() > followPausedUntil) {
      current.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    }
  }
  // Following the playing sentence pauses for a few seconds whenever the reader scrolls themselves.
  const pauseFollow = () => { followPausedUntil = Date.now() + 4000; };
  for (const type of ['wheel', 'touchmove', 'keydown']) window.addEventListener(type, pauseFollow, { passive: true });
  stops.push(() => {
    for (const type of ['wheel', 'touchmove', 'keydown']) window.removeEventListener(type, pauseFollow);
  });
  audio.addEventListener('timeupdate', highlight);

  function renderSpeakers() {
    const sentences = detail.transcript?.sentences ?? [];
    const shown = [...new Set(sentences.map((s) => s.speaker).filter(Boolean))];
    if (!shown.length) return null;
    const names = detail.speaker_names ?? {};
    const labelOf = (name) => Object.keys(names).find((label) => names[label] === name) ?? name;
    return h('section', { class: 'card', id: 'speakers', 'aria-labelledby': 'speakers-title' },
      h('h2', { id: 'speakers-title' }, 'Speakers'),
      h('ul', { class: 'speaker-list' }, shown.map((name, index) => {
        const input = h('input',
          { id: `speaker-${index}`, value: name, 'aria-label': `Name of ${labelOf(name)}`, maxlength: 64 });
        const error = h('span', { class: 'error', role: 'alert' });
        const save = async () => {
          const next = input.value.trim();
          if (!next || next === name) return; // an emptied field is not a name; Escape restores it
          try {
            detail = await api('PATCH', path, { speaker_names: { [labelOf(name)]: next } });
            renderAll();
            announce(`Renamed ${name} to ${next}.`);
          } catch (failure) {
            error.textContent = failure.message;
          }
        };
        // Saved on Enter and when the field loses focus (both fire `change`), so a rename is never lost by
        // clicking elsewhere; Escape puts the name back.
        input.addEventListener('keydown', (event) => { if (event.key === 'Escape') input.value = name; });
        input.addEventListener('change', save);
        return h('li', {}, input, error);
      })));
  }

  function renderSummary() {
    const summary = detail.summary;
    if (!summary) return null;
    const point = (item) => h('li', {}, item.text, item.start_ms != null
      ? [' ', h('button', { type: 'button', class: 'link', onclick: () => seek(item.start_ms) }, clock(item.start_ms))]
      : null);
    return h('section', { class: 'card', id: 'summary', 'aria-labelledby': 'summary-title' },
      h('h2', { id: 'summary-title' }, 'Summary', summary.method === 'extractive' ? ' (extractive)' : ''),
      h('p', {}, summary.abstract),
      summary.key_points.length ? [h('h3', {}, 'Key points'), h('ul', {}, summary.key_points.map(point))] : null,
      summary.action_items.length ? [h('h3', {}, 'Action items'), h('ul', {}, summary.action_items.map(point))] : null);
  }

  function renderTranslations() {
    const languages = Object.keys(detail.translations ?? {});
    if (!languages.length) return null;
    return h('section', { class: 'card wide', id: 'translations', 'aria-labelledby': 'translations-title' },
      h('h2', { id: 'translations-title' }, 'Translations'),
      languages.map((language) => {
        const translation = detail.translations[language];
        const beside = alignOriginals(detail.transcript?.sentences ?? [], translation.sentences);
        return h('table', { class: 'side-by-side' },
          h('caption', {}, `${language} (${translation.method})`),
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Time'), h('th', { scope: 'col' }, 'Original'),
            h('th', { scope: 'col' }, language))),
          h('tbody', {}, translation.sentences.map((sentence, index) => h('tr', {},
            h('td', {}, h('button', { type: 'button', class: 'link', onclick: () => seek(sentence.start_ms) },
              clock(sentence.start_ms))),
            h('td', {}, beside[index]), h('td', {}, sentence.text)))));
      }));
  }

  // The original sentences beside each translated one: every original sentence goes to the translated sentence
  // its time overlaps most (translations keep the times of the segments they were made from, which need not be the
  // transcript's sentences one for one), so none is shown twice or lost.
  function alignOriginals(original, translated) {
    const rows = translated.map(() => []);
    for (const o of original) {
      let best = -1, most = -1;
      translated.forEach((t, index) => {
        const overlap = Math.min(o.end_ms, t.end_ms) - Math.max(o.start_ms, t.start_ms);
        if (overlap > most) { most = overlap; best = index; }
      });
      if (best >= 0) rows[best].push(o.text);
    }
    return rows.map((texts) => texts.join(' '));
  }

  function running(type) {
    return (detail.tasks ?? []).some((task) => task.task_type === type && !FINAL.has(task.status));
  }

  function renderTasks() {
    const error = h('p', { class: 'error', role: 'alert' });
    const language = h('select', { id: 'translate-to', 'aria-label': 'Translate to' },
      LANGUAGES.map((code) => h('option', { value: code }, code)));
    // From the transcript with the language model (any target), or from the speech with Whisper (English only).
    const from = h('select', { id: 'translate-from', 'aria-label': 'Translate from' },
      h('option', { value: 'transcript' }, 'the transcript'), h('option', { value: 'speech' }, 'the speech (to en)'));
    from.addEventListener('change', () => {
      if (from.value === 'speech') language.value = 'en';
      language.disabled = from.value === 'speech';
    });
    const start = (body) => async () => {
      error.textContent = '';
      try {
        await api('POST', path + '/tasks', body);
        await refresh();
      } catch (failure) {
        error.textContent = failure.message;
      }
    };
    return h('section', { class: 'card', id: 'tasks', 'aria-labelledby': 'tasks-title' },
      h('h2', { id: 'tasks-title' }, 'Tasks'),
      h('ul', { class: 'task-list' }, (detail.tasks ?? []).map((task) => h('li',
        { class: 'task', dataset: { status: task.status } },
        h('span', {}, TASK_NAMES[task.task_type] ?? 'Task', task.target_language ? ` → ${task.target_language}` : ''),
        ' ',
        FINAL.has(task.status) ? null : h('progress', { max: 100, value: task.progress, 'aria-label': 'Progress' }),
        h('span', { class: 'status' }, ' ', task.status.toLowerCase(), task.error ? `: ${task.error}` : '')))),
      h('p', { class: 'actions' },
        h('button', { type: 'button', id: 'run-transcribe', disabled: running(0),
          onclick: start({ task_type: 0, diarization: { enabled: true } }) },
          detail.transcript ? 'Transcribe again' : 'Transcribe'),
        h('button', { type: 'button', id: 'run-summary', disabled: !detail.transcript || running(1),
          onclick: start({ task_type: 1 }) },
          detail.summary ? 'Summarize again' : 'Summarize'),
        h('span', { class: 'inline' }, h('span', {}, 'Translate from'), from, 'to', language,
          h('button', { type: 'button', id: 'run-translate', disabled: !detail.transcript || running(2),
            onclick: () => start({ task_type: 2, target_language: language.value, source: from.value })() },
          'Translate'))),
      error);
  }

  function renderAll() {
    renderHeader();
    renderTranscript();
    replace(side, renderSpeakers(), renderSummary(), renderTasks());
    const translations = renderTranslations();
    main.querySelector('#translations')?.remove();
    if (translations) main.querySelector('.record-page').append(translations);
    highlight();
  }

  async function refresh() {
    const next = await api('GET', path);
    if (left) return;
    detail = next;
    renderAll();
    schedule();
  }

  function schedule() {
    clearTimeout(poll);
    if (left) return; // a refresh that was under way when the page was left
    if ((detail.tasks ?? []).some((task) => !FINAL.has(task.status))) {
      poll = setTimeout(() => refresh().catch((error) => announce(error.message)), 1500);
    }
  }

  renderAll();
  renderWave();
  schedule();
  const at = Number(query.get('t'));
  if (query.has('t') && isFinite(at)) {
    audio.currentTime = at / 1000;
    const target = [...transcript.querySelectorAll('.sentence')].find((b) => Number(b.dataset.start) >= at - 1);
    target?.scrollIntoView({ block: 'center' });
    target?.focus({ preventScroll: true });
    highlight();
  }
  return () => {
    left = true;
    clearTimeout(poll);
    audio.pause();
    audio.removeEventListener('timeupdate', highlight);
    for (const stop of stops) stop();
  };
}
