// The live page's microphone tap, run on the audio thread (an AudioWorklet): the first input channel as PCM16,
// posted to the page 100 ms at a time (an Int16Array's buffer, transferred).
class Capture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.frame = Math.round(sampleRate / 10); // `sampleRate`: the AudioContext's, a global of the worklet scope
    this.pcm = new Int16Array(this.frame);
    this.filled = 0;
  }

  process(inputs) {
    const channel = inputs[0]?.[0];
    if (channel) {
      for (const sample of channel) {
        const clipped = Math.max(-1, Math.min(1, sample));
        this.pcm[this.filled++] = Math.round(clipped * 32767);
        if (this.filled === this.frame) {
          this.port.postMessage(this.pcm.buffer, [this.pcm.buffer]);
          this.pcm = new Int16Array(this.frame);
          this.filled = 0;
        }
      }
    }
    return true;
  }
}

registerProcessor('earshot-capture', Capture);
