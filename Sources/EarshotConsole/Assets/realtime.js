// What the Live and Conversation pages share: the microphone as PCM16 from an AudioWorklet, a client secret minted
// with the session cookie, the WebSocket to `GET /v1/realtime`, and the wait for the record a session becomes.
import { api, url } from './api.js';
import { announce, clock, h, replace } from './dom.js';

export const RATE = 24000;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Base64 of bytes (String.fromCharCode over slices: one append is 4.8 KB). */
export function base64(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** Why the microphone cannot be used, in words, or null when it can be asked for. */
export function microphoneProblem() {
  if (!window.isSecureContext) {
    return 'The browser offers the microphone only to pages served over HTTPS or from localhost. '
      + 'Open the console at https://… (or http://localhost) to speak live.';
  }
  if (!navigator.mediaDevices?.getUserMedia || typeof AudioWorkletNode !== 'function') {
    return 'This browser cannot capture audio for a live session (no getUserMedia or AudioWorklet).';
  }
  return null;
}

/**
 * The microphone and a 24 kHz AudioContext with the capture worklet loaded: `{stream, context}`. `echoCancellation`
 * for a page that plays audio while it listens (the Conversation page's spoken translations).
 */
export async function openMicrophone({ echoCancellation = false } = {}) {
  const stream = await navigator.mediaDevices.getUserMedia({
    // The speech engine hears best what the microphone heard: no noise suppression (it cut quiet words), no echo
    // cancellation unless the page plays sound; the gain control helps a quiet microphone.
    audio: { channelCount: 1, echoCancellation, noiseSuppression: false, autoGainControl: true },
  });
  const context = new AudioContext({ sampleRate: RATE });
  try {
    await context.audioWorklet.addModule(url('/console/capture.js'));
  } catch (error) {
    stream.getTracks().forEach((track) => track.stop());
    context.close().catch(() => {});
    throw error;
  }
  return { stream, context };
}

/** Feeds the microphone to `send(pcm16 ArrayBuffer)`, 100 ms at a time. */
export function tapMicrophone({ stream, context }, send) {
  const source = context.createMediaStreamSource(stream);
  const tap = new AudioWorkletNode(context, 'earshot-capture');
  tap.port.onmessage = (message) => send(message.data);
  source.connect(tap);
  tap.connect(context.destination); // the tap outputs silence; connected so the graph runs it
}

/** A session's state before its microphone and socket are open; `fields` adds a page's own. */
export function newSession(fields = {}) {
  return { socket: null, stream: null, context: null, recordID: null, pending: new Set(), speaking: null,
    closed: false, ...fields };
}

/** After a start that failed: the microphone and the socket closed; the message to show (`again`: how to retry). */
export function startFailed(current, error, again) {
  release(current);
  current.socket?.close();
  return error.name === 'NotAllowedError'
    ? `The microphone was not allowed. Allow it for this site and ${again} again.`
    : `Could not start: ${error.message}`;
}

/** Leaving the page: the microphone off and the socket closed, whatever the session was doing. */
export function abandon(current) {
  if (!current) return;
  release(current);
  current.socket?.close(1000, 'left the page');
}

/** Stops the microphone and its AudioContext (a socket stays open for the last events). */
export function release(current) {
  current.stream?.getTracks().forEach((track) => track.stop());
  current.context?.close().catch(() => {});
  current.stream = null;
  current.context = null;
}

/**
 * A client secret for `input` (the GA session's `audio.input`) and the open WebSocket to `/v1/realtime` + `query`,
 * which calls `onEvent` with each parsed event.
 */
export async function connect(input, query, onEvent, onError) {
  const secret = await api('POST', '/v1/realtime/client_secrets', {
    // Interim text: the words not yet stable, shown greyed after the stable ones about a second after they are said.
    session: { type: 'transcription', audio: { input }, include: ['item.input_audio_transcription.interim'] },
  });
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  // The live endpoint is at the root (as OpenAI clients expect it), not under api-prefix.
  const socket = new WebSocket(`${scheme}//${location.host}/v1/realtime${query}`,
    ['realtime', 'openai-insecure-api-key.' + secret.value]);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', () => reject(new Error('the live connection was refused')), { once: true });
  });
  socket.addEventListener('message', (message) => {
    try { onEvent(JSON.parse(message.data)); } catch (error) { onError(error); }
  });
  return socket;
}

/** Links the record `recordID` in `saved` once the server has kept it (it may take a moment after the close). */
export async function linkRecord(saved, recordID, linkID) {
  const path = `/open/partner/records/${encodeURIComponent(recordID)}`;
  for (let attempt = 0; attempt < 30; attempt++) {
    try {
      await api('GET', path);
      replace(saved, 'Kept in your library: ',
        h('a', { href: `#/records/${encodeURIComponent(recordID)}`, id: linkID }, 'open the record'), '.');
      return;
    } catch (error) {
      if (error.status !== 404) { replace(saved, `The record could not be opened: ${error.message}`); return; }
      await sleep(500);
    }
  }
  replace(saved, 'The session was not kept as a record.');
}

/**
 * The rows of a session's items in the list `items`: one `<li>` per item (time, final text, partial words,
 * translation, and the side that spoke when `sides` names them), made on first use.
 */
export function itemRows(items, sides = null) {
  function row(item, channel) {
    let element = items.querySelector(`li[data-item="${CSS.escape(item)}"]`);
    if (!element) {
      const side = sides && channel !== undefined ? `${sides[channel]} · ` : null;
      element = h('li', { class: sides ? 'live-item conv-item' : 'live-item', dataset: { item, channel: channel ?? '' } },
        side === null ? null : h('span', { class: 'side' }, side),
        h('span', { class: 'time' }), h('span', { class: 'text' }), h('span', { class: 'partial' }),
        h('span', { class: 'interim' }),
        h('p', { class: 'translation' }), sides ? h('p', { class: 'spoken muted' }) : null);
      items.append(element);
    }
    return element;
  }
  return { row, part: (item, name) => row(item).querySelector('.' + name) };
}

/** What is left of an item's interim text once `delta` became stable (EarshotKit's `LiveTranscript.interim`). */
export function withoutStable(interim, delta) {
  const key = (word) => word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  const stable = delta.split(/\s+/).map(key).filter((word) => word);
  const words = interim.split(/\s+/).filter((word) => word);
  let matched = 0;
  let index = 0;
  while (matched < stable.length && index < words.length
    && (!key(words[index]) || key(words[index]) === stable[matched])) {
    if (key(words[index])) matched++;
    index++;
  }
  return matched === 0 ? interim : words.slice(index).join(' ');
}

/**
 * Applies a session or transcription event to `current` (`recordID`, `synced`, `speaking`, `pending`: the items
 * not settled yet) and to `rows`; false for events it does not know. An item is settled at its final text, or, when
 * `current.awaitsTranslation`, once its translation came and was not to be spoken (`current.aloud`).
 */
export function applyEvent(rows, current, event) {
  const { row, part } = rows;
  const item = event.item_id;
  switch (event.type) {
    case 'session.created':
      current.recordID = event.record_id ?? null;
      return true;
    case 'session.updated':
      current.synced = true;
      return true;
    case 'input_audio_buffer.speech_started':
      current.speaking = item;
      row(item, event.channel).classList.add('speaking');
      part(item, 'time').textContent = clock(event.audio_start_ms ?? 0);
      return true;
    case 'input_audio_buffer.committed':
      if (current.speaking === item) current.speaking = null;
      current.pending.add(item);
      row(item, event.channel).classList.remove('speaking');
      return true;
    case 'conversation.item.input_audio_transcription.delta': {
      part(item, 'partial').textContent += event.delta ?? '';
      // The delta's words were the start of the interim text: they move, they are not shown twice.
      const interim = part(item, 'interim');
      const left = withoutStable(interim.textContent.trim(), event.delta ?? '');
      interim.textContent = left ? ' ' + left : '';
      return true;
    }
    case 'conversation.item.input_audio_transcription.interim': {
      const text = event.text ?? '';
      part(item, 'interim').textContent = text && part(item, 'partial').textContent ? ' ' + text : text;
      return true;
    }
    case 'conversation.item.input_audio_transcription.completed': {
      const text = (event.transcript ?? '').trim();
      if (!text || !current.awaitsTranslation) current.pending.delete(item);
      if (!text) { row(item).remove(); return true; }
      part(item, 'partial').textContent = '';
      part(item, 'interim').textContent = '';
      part(item, 'text').textContent = text;
      row(item).classList.add('final');
      return true;
    }
    case 'conversation.item.input_audio_transcription.failed':
      current.pending.delete(item);
      part(item, 'partial').textContent = '';
      part(item, 'interim').textContent = '';
      part(item, 'text').textContent = 'Not transcribed: ' + (event.error?.message ?? 'the decode failed');
      row(item).classList.add('failed');
      return true;
    case 'conversation.item.input_audio_translation.completed':
      part(item, 'translation').textContent = event.translation ?? '';
      // Spoken next when the listener wants it; otherwise the item is settled.
      if (!current.aloud || !(event.translation ?? '').trim()) current.pending.delete(item);
      return true;
    case 'conversation.item.input_audio_translation.failed':
      current.pending.delete(item);
      part(item, 'translation').textContent = 'No translation: ' + (event.error?.message ?? '');
      part(item, 'translation').classList.add('muted');
      return true;
    case 'error':
      // A refused commit at the end (nothing left to commit) is not news.
      if (event.error?.code !== 'input_audio_buffer_commit_empty') announce(event.error?.message ?? 'Error');
      return true;
    default:
      return false;
  }
}

/**
 * Ends a session whose microphone is off: once the server has handled the last audio (an update that changes
 * nothing is answered after it), commits the turn under way with `commit`, waits until no item is pending (at most
 * `limitMs`), and closes the socket.
 */
export async function finishSession(current, commit, limitMs) {
  const socket = current.socket;
  if (socket.readyState !== WebSocket.OPEN) return;
  const deadline = Date.now() + limitMs;
  current.synced = false;
  socket.send(JSON.stringify({ type: 'session.update', session: {} }));
  while (!current.closed && !current.synced && Date.now() < deadline) await sleep(50);
  if (current.speaking) socket.send(JSON.stringify(commit));
  await sleep(300); // the commit's `committed` event
  while (!current.closed && (current.pending.size > 0 || current.speaking) && Date.now() < deadline) {
    await sleep(200);
  }
  socket.close(1000, 'done');
}
