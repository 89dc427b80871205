// Quality: perfusion evaluations. Reference clips (audio + a .txt of what was said, paired by name) are uploaded
// and transcribed like any recording, then scored on the server (WER, CER, cpWER) with the same report as
// `earshot eval`; past evaluations are listed and their reports shown.
import { api, url, APIError } from './api.js';
import { h, replace, when, announce } from './dom.js';
import { uploadFile } from './upload.js';

const AUDIO = /\.(wav|mp3|m4a|aac|flac|ogg|opus|webm|amr|mp4)$/i;
const FINAL = new Set(['SUCCESS', 'FAILURE', 'REVOKED']);
const percent = (rate) => (100 * rate).toFixed(1) + ' %';
const stem = (name) => name.replace(/\.[^.]*$/, '');

/** Pairs audio files with the .txt of the same name; returns {pairs, problems}. */
function pairFiles(files) {
  const texts = new Map();
  const audio = [];
  const problems = [];
  for (const file of files) {
    if (/\.txt$/i.test(file.name)) texts.set(stem(file.name), file);
    else if (AUDIO.test(file.name)) audio.push(file);
    else problems.push(`${file.name} is neither audio nor a .txt reference`);
  }
  const pairs = [];
  for (const file of audio) {
    const reference = texts.get(stem(file.name));
    if (reference) {
      pairs.push({ audio: file, reference });
      texts.delete(stem(file.name));
    } else {
      problems.push(`${file.name} has no reference (${stem(file.name)}.txt)`);
    }
  }
  for (const text of texts.values()) problems.push(`${text.name} has no audio file with the same name`);
  return { pairs, problems };
}

/** Waits until `recordID` has a transcript; rejects when its transcription ended without one. */
async function transcribed(recordID, onWait, stopped) {
  for (;;) {
    if (stopped()) throw new APIError(0, 'CANCELLED', 'The page was left.');
    const detail = await api('GET', `/open/partner/records/${encodeURIComponent(recordID)}`);
    if (detail.record.has_transcript) return;
    const task = (detail.tasks ?? []).find((t) => t.task_type === 0);
    if (task && FINAL.has(task.status)) {
      throw new APIError(422, task.error_code ?? 'FAILURE',
        `${detail.record.title} could not be transcribed${task.error ? ': ' + task.error : ''}`);
    }
    onWait(task ? task.progress ?? 0 : 0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }
}

function newEvaluationForm(navigate, stopped) {
  const files = h('input', { id: 'quality-files', type: 'file', multiple: true,
    accept: 'audio/*,.m4a,.mp3,.wav,.ogg,.opus,.flac,.webm,.aac,.amr,.txt,text/plain' });
  const title = h('input', { id: 'quality-title', type: 'text', maxlength: 200, placeholder: 'Perfusion evaluation' });
  const language = h('select', { id: 'quality-language' },
    h('option', { value: '' }, 'From the transcripts'), h('option', { value: 'en' }, 'English'),
    h('option', { value: 'zh' }, 'Chinese'));
  const pairsList = h('ul', { id: 'quality-pairs', class: 'pairs' });
  const run = h('button', { type: 'submit', id: 'quality-run', disabled: true }, 'Upload and evaluate');
  const progress = h('progress', { id: 'quality-progress', max: 100, value: 0, hidden: true,
    'aria-label': 'Evaluation progress' });
  const status = h('p', { id: 'quality-status', role: 'status' });
  const error = h('p', { id: 'quality-error', class: 'error', role: 'alert' });
  let chosen = { pairs: [], problems: [] };
  files.addEventListener('change', () => {
    chosen = pairFiles([...files.files]);
    replace(pairsList,
      chosen.pairs.map((pair) => h('li', {}, pair.audio.name, ' ↔ ', pair.reference.name)),
      chosen.problems.map((problem) => h('li', { class: 'error' }, problem)));
    run.disabled = chosen.pairs.length === 0;
  });
  const form = h('form', { id: 'quality-form', class: 'upload' },
    h('h2', {}, 'New evaluation'),
    h('p', {}, 'Choose reference clips: each audio file with a .txt of what was said, with the same name ',
      '(meeting.wav and meeting.txt). One sentence per line, or speaker<TAB>text on every line to score speakers ',
      'too. The clips are added to your library and transcribed, then scored.'),
    h('p', { class: 'field' }, h('label', { for: 'quality-files' }, 'Reference clips'), files),
    pairsList,
    h('p', { class: 'field inline' }, h('label', { for: 'quality-title' }, 'Title'), title),
    h('p', { class: 'field inline' }, h('label', { for: 'quality-language' }, 'Language rules'), language),
    run, progress, status, error);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    run.disabled = true;
    progress.hidden = false;
    const pairs = chosen.pairs;
    try {
      const clips = [];
      for (const [index, pair] of pairs.entries()) {
        const share = 50 / pairs.length;
        const record = await uploadFile(pair.audio, {
          diarize: false,
          onProgress: (fraction, text) => {
            progress.value = index * share + fraction * share;
            status.textContent = text;
          },
        });
        clips.push({ record_id: record.record_id, reference: await pair.reference.text(), name: pair.audio.name });
      }
      for (const [index, clip] of clips.entries()) {
        await transcribed(clip.record_id, (taskProgress) => {
          progress.value = 50 + (index + taskProgress / 100) * (45 / clips.length);
          status.textContent = `Transcribing ${clip.name}: ${taskProgress} %`;
        }, stopped);
      }
      status.textContent = 'Scoring…';
      const body = { clips: clips.map(({ record_id, reference }) => ({ record_id, reference })) };
      if (title.value.trim()) body.title = title.value.trim();
      if (language.value) body.language = language.value;
      const evaluation = await api('POST', '/open/partner/evaluations', body);
      progress.value = 100;
      announce(`Evaluated: WER ${percent(evaluation.wer)}.`);
      navigate(`#/quality/${encodeURIComponent(evaluation.evaluation_id)}`);
    } catch (failure) {
      if (failure.code === 'CANCELLED') return;
      error.textContent = failure.message;
      status.textContent = '';
      progress.hidden = true;
      run.disabled = chosen.pairs.length === 0;
    }
  });
  return form;
}

function evaluationRow(evaluation) {
  return h('tr', { 'data-evaluation': evaluation.evaluation_id },
    h('td', {}, h('a', { href: `#/quality/${encodeURIComponent(evaluation.evaluation_id)}` }, evaluation.title)),
    h('td', {}, when(evaluation.created_at_ms)),
    h('td', { class: 'number' }, evaluation.clips.length),
    h('td', { class: 'number' }, percent(evaluation.wer)),
    h('td', { class: 'number' }, percent(evaluation.cer)));
}

/** The quality page: past evaluations and a new one. Returns the page's clean-up. */
export async function qualityPage(main, query, { navigate }) {
  let left = false;
  const list = h('section', { 'aria-labelledby': 'evaluations-title' },
    h('h2', { id: 'evaluations-title' }, 'Evaluations'), h('p', { class: 'muted' }, 'Loading…'));
  replace(main, h('h1', {}, 'Quality'), newEvaluationForm(navigate, () => left), list);
  try {
    const { evaluations } = await api('GET', '/open/partner/evaluations?limit=50');
    replace(list, h('h2', { id: 'evaluations-title' }, 'Evaluations'),
      evaluations.length === 0
        ? h('p', { class: 'muted', id: 'no-evaluations' }, 'No evaluations yet.')
        : h('table', { id: 'evaluations', class: 'scores' },
          h('thead', {}, h('tr', {}, ['Title', 'When', 'Clips', 'WER', 'CER'].map((name, index) =>
            h('th', { scope: 'col', class: index > 1 ? 'number' : null }, name)))),
          h('tbody', {}, evaluations.map(evaluationRow))));
  } catch (error) {
    replace(list, h('h2', { id: 'evaluations-title' }, 'Evaluations'), h('p', { class: 'error' }, error.message));
  }
  return () => { left = true; };
}

/** One evaluation: its scores, per-clip rows and the HTML report. */
export async function evaluationPage(main, id, { navigate }) {
  let evaluation;
  try {
    evaluation = await api('GET', `/open/partner/evaluations/${encodeURIComponent(id)}`);
  } catch (error) {
    replace(main,
      h('h1', {}, error.status === 404 ? 'Not found' : 'This evaluation could not be shown'),
      h('p', {}, error.status === 404 ? 'There is no evaluation with this id.' : error.message),
      h('p', {}, h('a', { href: '#/quality' }, 'Back to Quality')));
    return null;
  }
  const report = url(`/open/partner/evaluations/${encodeURIComponent(id)}/report`);
  const figure = (name, value) => h('div', {}, h('dt', {}, name), h('dd', {}, value));
  const remove = h('button', { type: 'button', id: 'evaluation-delete', class: 'danger' }, 'Delete evaluation');
  remove.addEventListener('click', async () => {
    if (!confirm(`Delete "${evaluation.title}"? The clips stay in your library.`)) return;
    try {
      await api('DELETE', `/open/partner/evaluations/${encodeURIComponent(id)}`);
      announce('Evaluation deleted.');
      navigate('#/quality');
    } catch (error) {
      announce(error.message);
    }
  });
  replace(main,
    h('p', {}, h('a', { href: '#/quality' }, '← Quality')),
    h('h1', { id: 'evaluation-title' }, evaluation.title),
    h('p', { class: 'meta' }, when(evaluation.created_at_ms), ' · ', evaluation.language, ' rules',
      evaluation.models.length ? ' · ' + evaluation.models.join(', ') : ''),
    h('dl', { class: 'figures', id: 'evaluation-figures' },
      figure('WER', percent(evaluation.wer)), figure('CER', percent(evaluation.cer)),
      figure('Accuracy', percent(evaluation.accuracy)),
      figure('Reference words', evaluation.reference_words),
      figure('Errors', `S ${evaluation.substitutions} · D ${evaluation.deletions} · I ${evaluation.insertions}`),
      evaluation.cp_wer === undefined || evaluation.cp_wer === null ? null : figure('cpWER', percent(evaluation.cp_wer))),
    h('table', { class: 'scores', id: 'evaluation-clips' },
      h('thead', {}, h('tr', {}, ['Clip', 'Reference words', 'WER'].map((name, index) =>
        h('th', { scope: 'col', class: index > 0 ? 'number' : null }, name)))),
      h('tbody', {}, evaluation.clips.map((clip) => h('tr', { 'data-record': clip.record_id },
        h('td', {}, h('a', { href: `#/records/${encodeURIComponent(clip.record_id)}` }, clip.name)),
        h('td', { class: 'number' }, clip.reference_words),
        h('td', { class: 'number' }, percent(clip.wer)))))),
    h('p', {}, h('a', { href: report, target: '_blank', rel: 'noopener', id: 'evaluation-report-link' },
      'Open the full report'), ' ', remove),
    h('iframe', { src: report, id: 'evaluation-report', title: 'Evaluation report', class: 'report' }));
  return null;
}
