// The languages the console offers (Whisper's, as the records' transcription and translation targets use them).

export const LANGUAGES = ['en', 'zh', 'ja', 'ko', 'fr', 'de', 'es', 'ru', 'it', 'pt', 'th', 'vi', 'ar', 'hi'];

const names = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(['en'], { type: 'language' }) : null;

/** "French (fr)"; "Detect it" for `auto`. */
export const languageName = (code) => code === 'auto' ? 'Detect it' : `${names?.of(code) ?? code} (${code})`;
