// Upload from the browser: the presigned multipart upload the SDK uses (plan → PUT parts → complete), then the
// record and its transcription task.
import { api, APIError } from './api.js';

/** PUTs `blob` to a signed part URL, reporting bytes sent; resolves to the part's ETag. */
function putPart(url, blob, onBytes) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', url);
    request.upload.onprogress = (event) => onBytes(event.loaded);
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) return resolve(request.getResponseHeader('ETag'));
      let message = `The server answered ${request.status}.`;
      try { message = JSON.parse(request.responseText).error.message; } catch { /* keep the status */ }
      reject(new APIError(request.status, 'UPLOAD', message));
    };
    request.onerror = () => reject(new APIError(0, 'NETWORK', 'The connection broke during the upload.'));
    request.send(blob);
  });
}

/**
 * Where an upload of `file` stands: an open upload this browser started earlier for the same file (name, size,
 * modification time; kept in localStorage until it completes), with the parts the server already holds, else a
 * new plan. So a reload, a closed tab or a broken connection costs only the parts not yet sent.
 */
async function uploadPlan(file, filetype, key) {
  const saved = localStorage.getItem(key);
  if (saved) {
    try {
      const status = await api('GET', `/open/partner/files/upload/${encodeURIComponent(saved)}/parts`);
      if (status.state === 'open' && status.filesize === file.size) {
        return {
          fileID: status.file_id, uploadID: status.upload_id, chunkSize: status.chunk_size,
          done: status.parts.map((p) => ({ part_number: p.part_number, etag: p.etag, size: p.size })),
          todo: status.pending.map((p) => ({ number: p.part_number, url: p.presigned_url })),
        };
      }
    } catch {
      // Expired, completed or unknown: start again.
    }
    localStorage.removeItem(key);
  }
  const plan = await api('POST', '/open/partner/files/upload/generate-presigned-urls',
    { filesize: file.size, filetype, filename: file.name });
  localStorage.setItem(key, plan.UploadId);
  return {
    fileID: plan.FileId, uploadID: plan.UploadId, chunkSize: plan.ChunkSize, done: [],
    todo: plan.Parts.map((p) => ({ number: p.PartNumber, url: p.PresignedUrl })),
  };
}

/** Uploads `file` (resuming an earlier attempt), makes its record and starts its transcription; resolves to the
 * record. `onProgress(fraction, text)` reports the bytes sent. */
export async function uploadFile(file, { diarize, onProgress }) {
  const dot = file.name.lastIndexOf('.');
  const filetype = dot > 0 ? file.name.slice(dot + 1).toLowerCase() : '';
  if (!filetype) throw new APIError(400, 'INVALID_ARGUMENT', 'the file name has no extension (like .m4a or .wav)');
  onProgress(0, 'Preparing the upload…');
  const key = `earshot-upload:${file.name}:${file.size}:${file.lastModified}`;
  const plan = await uploadPlan(file, filetype, key);
  const held = plan.done.reduce((sum, part) => sum + part.size, 0);
  const sent = new Map();
  const parts = plan.done.map(({ part_number, etag }) => ({ part_number, etag }));
  const report = () => {
    const total = held + [...sent.values()].reduce((a, b) => a + b, 0);
    const percent = Math.round(100 * total / file.size);
    onProgress(0.95 * total / file.size, `Uploading ${file.name}: ${percent} %` + (held ? ' (resumed)' : ''));
  };
  report();
  for (const part of plan.todo) {
    const start = (part.number - 1) * plan.chunkSize;
    const blob = file.slice(start, Math.min(start + plan.chunkSize, file.size));
    let etag = null;
    for (let attempt = 1; !etag; attempt += 1) {
      try {
        etag = await putPart(part.url, blob, (bytes) => { sent.set(part.number, bytes); report(); });
      } catch (error) {
        if (attempt >= 3 || (error.status >= 400 && error.status < 500)) throw error;
      }
    }
    parts.push({ part_number: part.number, etag });
  }
  parts.sort((a, b) => a.part_number - b.part_number);
  onProgress(0.96, 'Assembling the file…');
  await api('POST', '/open/partner/files/upload/complete-upload',
    { file_id: plan.fileID, upload_id: plan.uploadID, filetype, part_list: parts });
  localStorage.removeItem(key);
  onProgress(0.98, 'Reading the audio…');
  const detail = await api('POST', '/open/partner/records', { file_id: plan.fileID, title: file.name });
  await api('POST', `/open/partner/records/${encodeURIComponent(detail.record.record_id)}/tasks`,
    { task_type: 0, ...(diarize ? { diarization: { enabled: true } } : {}) });
  onProgress(1, 'Uploaded; transcribing.');
  return detail.record;
}
