// The amplitude wave, drawn from the envelope the server computed at ingest (docs/audio.md): the browser never
// decodes the audio. Format: "EENV", version, reserved, points/s (u16), sample rate (u32), count (u32), then per
// bucket min (i8), max (i8), rms (u8).

/** Decodes the base64 envelope into {pointsPerSecond, count, min, max} (amplitudes in -1…1). */
export function decodeEnvelope(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  const magic = String.fromCharCode(...bytes.slice(0, 4));
  if (magic !== 'EENV' || bytes[4] !== 1) throw new Error('unknown envelope format');
  const pointsPerSecond = view.getUint16(6, true);
  const count = Math.min(view.getUint32(12, true), Math.floor((bytes.length - 16) / 3));
  const min = new Float32Array(count), max = new Float32Array(count);
  for (let i = 0; i < count; i += 1) {
    min[i] = view.getInt8(16 + 3 * i) / 127;
    max[i] = view.getInt8(17 + 3 * i) / 127;
  }
  return { pointsPerSecond, count, min, max };
}

/**
 * Draws `envelope` into `canvas` and keeps it in step with `audio`: the played part in the accent colour, a click
 * or the arrow keys seek. Returns a function that stops it.
 */
export function attachWave(canvas, envelope, audio) {
  const durationMs = () => (audio.duration && isFinite(audio.duration) ? audio.duration * 1000
    : 1000 * envelope.count / envelope.pointsPerSecond);
  const draw = () => {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(canvas.clientWidth * ratio));
    const height = Math.max(1, Math.round(canvas.clientHeight * ratio));
    if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
    const context = canvas.getContext('2d');
    const style = getComputedStyle(canvas);
    const played = style.getPropertyValue('--wave-played').trim() || '#2563eb';
    const rest = style.getPropertyValue('--wave').trim() || '#94a3b8';
    const playedX = width * (audio.currentTime * 1000) / durationMs();
    context.clearRect(0, 0, width, height);
    const middle = height / 2;
    const perPixel = envelope.count / width;
    for (let x = 0; x < width; x += 1) {
      const from = Math.floor(x * perPixel), to = Math.max(from + 1, Math.floor((x + 1) * perPixel));
      let low = 0, high = 0;
      for (let i = from; i < to && i < envelope.count; i += 1) {
        if (envelope.min[i] < low) low = envelope.min[i];
        if (envelope.max[i] > high) high = envelope.max[i];
      }
      context.fillStyle = x < playedX ? played : rest;
      const top = middle - high * middle, bottom = middle - low * middle;
      context.fillRect(x, top, 1, Math.max(1, bottom - top));
    }
    canvas.dataset.drawn = String(envelope.count);
  };
  const seek = (event) => {
    const box = canvas.getBoundingClientRect();
    audio.currentTime = Math.max(0, (event.clientX - box.left) / box.width) * durationMs() / 1000;
  };
  const keys = (event) => {
    const step = { ArrowLeft: -5, ArrowRight: 5 }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    audio.currentTime = Math.max(0, audio.currentTime + step);
  };
  const observer = new ResizeObserver(draw);
  observer.observe(canvas);
  canvas.addEventListener('click', seek);
  canvas.addEventListener('keydown', keys);
  audio.addEventListener('timeupdate', draw);
  audio.addEventListener('loadedmetadata', draw);
  draw();
  return () => {
    observer.disconnect();
    audio.removeEventListener('timeupdate', draw);
    audio.removeEventListener('loadedmetadata', draw);
  };
}
