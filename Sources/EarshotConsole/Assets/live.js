// Live: speak and watch the transcript form. The microphone goes to `GET /v1/realtime` over a WebSocket opened with a
// client secret minted for this page (PCM16 from an AudioWorklet, server VAD); words appear as the server settles
// them, each turn's final text with its time, and its translation beside it when one was asked for. Stop finishes
// the last turn and closes the session, which the server keeps as a record (docs/live.md).
import { h, replace, announce } from './dom.js';
import { LANGUAGES, languageName } from './languages.js';
import {
  abandon, applyEvent, base64, connect, finishSession, itemRows, linkRecord, microphoneProblem, newSession,
  openMicrophone, release, startFailed, tapMicrophone,
} from './realtime.js';

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
      'Words and translations are made by machine and can be wrong. ',
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

  const rows = itemRows(items);

  async function begin() {
    start.disabled = true;
    language.disabled = true;
    target.disabled = true;
    replace(items);
    replace(saved);
    state.textContent = 'Asking for the microphone…';
    const current = newSession();
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
      const socket = await connect(input, '', (event) => applyEvent(rows, current, event),
        (error) => announce(error.message));
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
      session = null;
      state.textContent = startFailed(current, error, 'press Start');
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
    state.textContent = 'Finishing the last words…';
    await finishSession(current, { type: 'input_audio_buffer.commit' }, FINISH_MS);
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
    abandon(current);
  };
}
