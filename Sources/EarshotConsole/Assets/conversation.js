// Conversation: two people, two languages, one device between them (seed 000's face-to-face translation). Each side
// taps its button and speaks; the words go to `GET /v1/realtime?intent=dialogue` on that side's channel, and the
// page shows each utterance with its translation into the other side's language and plays the translation spoken
// to the other side. One side speaks at a time: tapping the other side ends the current turn (docs/live.md).
import { h, replace, announce } from './dom.js';
import { LANGUAGES, languageName } from './languages.js';
import {
  RATE, abandon, applyEvent, base64, connect, finishSession, itemRows, linkRecord, microphoneProblem, newSession,
  openMicrophone, release, sleep, startFailed, tapMicrophone,
} from './realtime.js';

/** How long End waits for the last translations and speech before closing anyway. */
const FINISH_MS = 90000;
const SIDES = ['A', 'B'];

/** PCM16 little-endian in base64 → Float32 samples. */
function samples(delta) {
  const bytes = Uint8Array.from(atob(delta), (c) => c.charCodeAt(0));
  const pcm = new Int16Array(bytes.buffer, 0, bytes.length >> 1);
  return Float32Array.from(pcm, (value) => value / 32768);
}

export async function conversationPage(main) {
  const languages = [0, 1].map((side) => h('select', { id: `conv-language-${side}` },
    LANGUAGES.map((code) => h('option', { value: code, selected: code === (side === 0 ? 'en' : 'es') },
      languageName(code)))));
  const talk = [0, 1].map((side) => h('button', { type: 'button', id: `conv-talk-${side}`, class: 'primary',
    'aria-pressed': 'false' }, `Side ${SIDES[side]} speaks`));
  const aloud = h('input', { type: 'checkbox', id: 'conv-aloud', checked: true });
  const end = h('button', { type: 'button', id: 'conv-end', disabled: true }, 'End');
  const state = h('p', { id: 'conv-state', class: 'meta', role: 'status' }, 'Tap the side that speaks first.');
  const items = h('ol', { id: 'conv-items', class: 'live-items' });
  const saved = h('p', { id: 'conv-record' });
  replace(main, h('section', { class: 'live-page' },
    h('h1', {}, 'Conversation'),
    h('p', { class: 'muted' }, 'Two people, two languages, one device. Tap your side and speak: your words are ',
      'translated and spoken to the other side. Translations are made by machine and can be wrong: when something ',
      'matters, check it with the other person. When you end, the conversation is kept in your library. ',
      h('a', { href: '#/live' }, 'Back to Live')),
    h('div', { class: 'card conv-sides' }, ...[0, 1].map((side) => h('div', { class: 'conv-side' },
      h('label', { for: `conv-language-${side}` }, `Side ${SIDES[side]}'s language`), languages[side], talk[side])),
    h('div', { class: 'actions' }, h('label', {}, aloud, ' Speak translations aloud'), end)),
    state, items, saved));

  const problem = microphoneProblem();
  if (problem) {
    state.textContent = problem;
    talk.forEach((button) => { button.disabled = true; });
    return () => {};
  }

  let session = null;

  const rows = itemRows(items, SIDES.map((side) => `Side ${side}`));
  const { row, part } = rows;

  /** Plays a spoken translation's samples after what is already queued. */
  function play(current, event) {
    const audio = samples(event.delta ?? '');
    if (!audio.length || !current.context) return;
    const buffer = current.context.createBuffer(1, audio.length, RATE);
    buffer.copyToChannel(audio, 0);
    const source = current.context.createBufferSource();
    source.buffer = buffer;
    source.connect(current.context.destination);
    const at = Math.max(current.context.currentTime + 0.05, current.playhead);
    source.start(at);
    current.playhead = at + buffer.duration;
    const element = row(event.item_id);
    element.dataset.playedSamples = String(Number(element.dataset.playedSamples ?? 0) + audio.length);
  }

  function handle(current, event) {
    if (applyEvent(rows, current, event)) return;
    const item = event.item_id;
    switch (event.type) {
      case 'response.output_audio.delta':
        play(current, event);
        break;
      case 'response.output_audio.done':
        current.pending.delete(item);
        row(item).dataset.audioMs = String(event.audio_ms ?? 0);
        part(item, 'spoken').textContent =
          `Spoken to side ${SIDES[event.channel] ?? '?'} (${((event.audio_ms ?? 0) / 1000).toFixed(1)} s)`;
        break;
      case 'response.output_audio.failed':
        current.pending.delete(item);
        part(item, 'spoken').textContent = 'Not spoken: ' + (event.error?.message ?? '');
        break;
      default:
        break;
    }
  }

  function show(current) {
    talk.forEach((button, side) => {
      const active = current && current.channel === side;
      button.setAttribute('aria-pressed', String(active));
      button.classList.toggle('active', active);
    });
  }

  async function begin(channel) {
    talk.forEach((button) => { button.disabled = true; });
    languages.forEach((select) => { select.disabled = true; });
    aloud.disabled = true;
    replace(items);
    replace(saved);
    state.textContent = 'Asking for the microphone…';
    const current = newSession({ synced: false, channel, playhead: 0, aloud: aloud.checked, awaitsTranslation: true });
    session = current;
    try {
      // Echo cancellation: the translations this page plays must not come back as the speaker's words (muting the
      // microphone while they play would cut the speaker off when they go on talking).
      Object.assign(current, await openMicrophone({ echoCancellation: true }));
      state.textContent = 'Connecting…';
      const input = {
        format: { type: 'audio/pcm', rate: current.context.sampleRate }, transcription: { model: 'asr-fast' },
        turn_detection: { type: 'server_vad' },
      };
      const socket = await connect(input, '?intent=dialogue', (event) => handle(current, event),
        (error) => announce(error.message));
      current.socket = socket;
      socket.addEventListener('close', (close) => {
        current.closed = true;
        if (session !== current || current.finishing) return;
        release(current);
        state.textContent = `The conversation ended${close.reason ? ': ' + close.reason : ''}.`;
        done(current);
      });
      socket.send(JSON.stringify({ type: 'session.update', session: {
        channels: languages.map((select) => ({ language: select.value, speak: current.aloud })),
        audio: { output: { format: { type: 'audio/pcm', rate: RATE } } },
      } }));
      const deadline = Date.now() + 10000;
      while (!current.synced && !current.closed && Date.now() < deadline) await sleep(20);
      if (!current.synced) throw new Error('the server did not accept the two languages');
      tapMicrophone(current, (pcm) => {
        if (socket.readyState !== WebSocket.OPEN) return;
        socket.send(JSON.stringify({ type: 'input_audio_buffer.append', channel: current.channel, audio: base64(pcm) }));
      });
      talk.forEach((button) => { button.disabled = false; });
      end.disabled = false;
      show(current);
      state.textContent = `Side ${SIDES[channel]} is speaking.`;
    } catch (error) {
      session = null;
      state.textContent = startFailed(current, error, 'tap a side');
      reset();
    }
  }

  /** A tap on a side: start the conversation, or hand the turn to that side. */
  function tap(channel) {
    const current = session;
    if (!current) return begin(channel);
    if (current.channel === channel) return;
    current.channel = channel; // the server ends the other side's turn at this side's first append
    show(current);
    state.textContent = `Side ${SIDES[channel]} is speaking.`;
  }

  /** End: the microphone off, the turn under way committed, the translations and speech awaited, the socket closed. */
  async function finish() {
    const current = session;
    if (!current) return;
    end.disabled = true;
    current.finishing = true;
    // The microphone off; the AudioContext stays for the translations still to be spoken.
    current.stream?.getTracks().forEach((track) => track.stop());
    state.textContent = 'Finishing the last words…';
    await finishSession(current, { type: 'input_audio_buffer.commit', channel: current.channel }, FINISH_MS);
    state.textContent = 'Ended.';
    await done(current);
  }

  function reset() {
    talk.forEach((button) => { button.disabled = false; });
    languages.forEach((select) => { select.disabled = false; });
    aloud.disabled = false;
    end.disabled = true;
    show(null);
  }

  async function done(current) {
    if (session === current) session = null;
    reset();
    const playing = current.context ? Math.max(0, current.playhead - current.context.currentTime) : 0;
    setTimeout(() => release(current), playing * 1000 + 200);
    if (!current.recordID || !items.querySelector('li.final')) return;
    await linkRecord(saved, current.recordID, 'conv-record-link');
  }

  talk.forEach((button, side) => button.addEventListener('click', () => tap(side)));
  end.addEventListener('click', () => finish());
  return () => {
    const current = session;
    session = null;
    abandon(current);
  };
}
