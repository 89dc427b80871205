// Live: speak and watch the transcript form. The microphone goes to `GET /v1/realtime` over a WebSocket opened with a
// client secret minted for this page (PCM16 from an AudioWorklet, server VAD); words appear as the server settles
// them, each turn's final text with its time, and its translation beside it when one was asked for. Stop finishes
// the last turn and closes the session, which the server keeps as a record (docs/live.md).
import { h, replace, clock, announce } from './dom.js';
import { LANGUAGES, languageName } from './languages.js';
import { base64, connect, linkRecord, microphoneProblem, openMicrophone, release, sleep, tapMicrophone } from './realtime.js';

/** How long Stop waits for the last finals before closing anyway. */
const FINISH_MS = 60000;

export async function livePage(main) {
  const language = h('select', { id: 'live-language' },
    ['auto', ...LANGUAGES].map((code) => h('option', { value: code }, languageName(code))));
  const target = h('select', { id: 'live-translate' }, h('option', { value: '' }, 'No translation'),
    LANGUAGES.map((code) => h('option', { value: code }, languageName(code))));
  const start = h('button', { type: 'button', id: 'live-start', class: 'primary' }, 'Start');
  const stop = h('button', { type: 'button', id: 'live-stop', disabled: true }, 'Stop');
  const state = h('p', { id: 'live-state', class: 'meta', role: 'status' }, 'Press Start and speak.');
  const items = h('ol', { id: 'live-items', class: 'live-items' });
  const saved = h('p', { id: 'live-record' });
  replace(main, h('section', { class: 'live-page' },
    h('h1', {}, 'Live'),
    h('p', { class: 'muted' }, 'Your words appear as you speak; each pause settles them. ',
      'When you stop, the session is kept in your library with its audio. ',
      h('a', { href: '#/live/conversation', id: 'live-conversation' },
        'Face-to-face conversation: two people, two languages')),
    h('div', { class: 'card' }, h('div', { class: 'actions' },
      h('label', { for: 'live-language' }, 'Spoken language'), language,
      h('label', { for: 'live-translate' }, 'Translate into'), target, start, stop)),
    state, items, saved));

  const problem = microphoneProblem();
  if (problem) {
    state.textContent = problem;
    start.disabled = true;
    return () => {};
  }

  let session = null;

  /** The row of `item`, made on first use. */
  function row(item) {
    let element = items.querySelector(`li[data-item="${CSS.escape(item)}"]`);
    if (!element) {
      element = h('li', { class: 'live-item', dataset: { item } },
        h('span', { class: 'time' }), h('span', { class: 'text' }), h('span', { class: 'partial' }),
        h('p', { class: 'translation' }));
      items.append(element);
    }
    return element;
  }
  const part = (item, name) => row(item).querySelector('.' + name);

  function handle(event) {
    const item = event.item_id;
    switch (event.type) {
      case 'session.created':
        session.recordID = event.record_id ?? null;
        break;
      case 'session.updated':
        session.synced = true;
        break;
      case 'input_audio_buffer.speech_started':
        session.speaking = item;
        part(item, 'time').textContent = clock(event.audio_start_ms ?? 0);
        row(item).classList.add('speaking');
        break;
      case 'input_audio_buffer.committed':
        if (session.speaking === item) session.speaking = null;
        session.pending.add(item);
        row(item).classList.remove('speaking');
        break;
      case 'conversation.item.input_audio_transcription.delta':
        part(item, 'partial').textContent += event.delta ?? '';
        break;
      case 'conversation.item.input_audio_transcription.completed': {
        session.pending.delete(item);
        const text = (event.transcript ?? '').trim();
        if (!text) { row(item).remove(); break; }
        part(item, 'partial').textContent = '';
        part(item, 'text').textContent = text;
        row(item).classList.add('final');
        break;
      }
      case 'conversation.item.input_audio_transcription.failed':
        session.pending.delete(item);
        part(item, 'partial').textContent = '';
        part(item, 'text').textContent = 'Not transcribed: ' + (event.error?.message ?? 'the decode failed');
        row(item).classList.add('failed');
        break;
      case 'conversation.item.input_audio_translation.completed':
        part(item, 'translation').textContent = event.translation ?? '';
        break;
      case 'conversation.item.input_audio_translation.failed':
        part(item, 'translation').textContent = 'No translation: ' + (event.error?.message ?? '');
        part(item, 'translation').classList.add('muted');
        break;
      case 'error':
        // A refused commit at the end (nothing left to commit) is not news.
        if (event.error?.code !== 'input_audio_buffer_commit_empty') announce(event.error?.message ?? 'Error');
        break;
      default:
        break;
    }
  }

  async function begin() {
    start.disabled = true;
    language.disabled = true;
    target.disabled = true;
    replace(items);
    replace(saved);
    state.textContent = 'Asking for the microphone…';
    const current = { socket: null, stream: null, context: null, recordID: null, pending: new Set(), speaking: null,
      closed: false };
    session = current;
    try {
      Object.assign(current, await openMicrophone());

      state.textContent = 'Connecting…';
      const transcription = { model: 'asr-fast' };
      if (language.value !== 'auto') transcription.language = language.value;
      if (target.value) transcription.translate_to = target.value;
      const input = {
        format: { type: 'audio/pcm', rate: current.context.sampleRate }, transcription,
        turn_detection: { type: 'server_vad' },
      };
      const socket = await connect(input, '', handle, (error) => announce(error.message));
      current.socket = socket;
      socket.addEventListener('close', (close) => {
        current.closed = true;
        if (session !== current || current.finishing) return;
        release(current);
        state.textContent = `The live session ended${close.reason ? ': ' + close.reason : ''}.`;
        done(current);
      });
      tapMicrophone(current, (pcm) => {
        if (socket.readyState === WebSocket.OPEN) {
          socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: base64(pcm) }));
        }
      });
      state.textContent = 'Listening.';
      stop.disabled = false;
    } catch (error) {
      release(current);
      current.socket?.close();
      session = null;
      state.textContent = error.name === 'NotAllowedError'
        ? 'The microphone was not allowed. Allow it for this site and press Start again.'
        : `Could not start: ${error.message}`;
      start.disabled = false;
      language.disabled = false;
      target.disabled = false;
    }
  }

  /** Stop: the microphone off, the turn under way committed, the finals awaited, the session closed. */
  async function finish() {
    const current = session;
    if (!current) return;
    stop.disabled = true;
    current.finishing = true;
    release(current);
    const socket = current.socket;
    if (socket.readyState === WebSocket.OPEN) {
      state.textContent = 'Finishing the last words…';
      const deadline = Date.now() + FINISH_MS;
      // The server may not have handled the last audio yet: an update that changes nothing is answered after it,
      // and then `speaking` says whether a turn is still under way.
      current.synced = false;
      socket.send(JSON.stringify({ type: 'session.update', session: {} }));
      while (!current.closed && !current.synced && Date.now() < deadline) await sleep(50);
      if (current.speaking) socket.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
      await sleep(300); // the commit's `committed` event
      while (!current.closed && (current.pending.size > 0 || current.speaking) && Date.now() < deadline) {
        await sleep(200);
      }
      socket.close(1000, 'done');
    }
    state.textContent = 'Stopped.';
    await done(current);
  }

  /** After the session: the link to its record once the server has kept it. */
  async function done(current) {
    if (session === current) session = null;
    start.disabled = false;
    stop.disabled = true;
    language.disabled = false;
    target.disabled = false;
    if (!current.recordID || !items.querySelector('li.final')) return;
    await linkRecord(saved, current.recordID, 'live-record-link');
  }

  start.addEventListener('click', () => begin());
  stop.addEventListener('click', () => finish());
  return () => {
    const current = session;
    session = null;
    if (current) {
      release(current);
      current.socket?.close(1000, 'left the page');
    }
  };
}
