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

/** Uploads `file`, makes its record and starts its transcription; resolves to the record. */
export async function uploadFile(file, { diarize, onProgress }) {
  const dot = file.name.lastIndexOf('.');
  const filetype = dot > 0 ? file.name.slice(dot + 1).toLowerCase() : '';
  if (!filetype) throw new APIError(400, 'INVALID_ARGUMENT', 'the file name has no extension (like .m4a or .wav)');
  onProgress(0, 'Preparing the upload…');
  const plan = await api('POST', '/open/partner/files/upload/generate-presigned-urls',
    { filesize: file.size, filetype, filename: file.name });
  const sent = new Array(plan.Parts.length).fill(0);
  const parts = [];
  for (const part of plan.Parts) {
    const start = (part.PartNumber - 1) * plan.ChunkSize;
    const blob = file.slice(start, Math.min(start + plan.ChunkSize, file.size));
    let etag = null;
    for (let attempt = 1; !etag; attempt += 1) {
      try {
        etag = await putPart(part.PresignedUrl, blob, (bytes) => {
          sent[part.PartNumber - 1] = bytes;
          const total = sent.reduce((a, b) => a + b, 0);
          onProgress(0.95 * total / file.size, `Uploading ${file.name}: ${Math.round(100 * total / file.size)} %`);
        });
      } catch (error) {
        if (attempt >= 3 || (error.status >= 400 && error.status < 500)) throw error;
      }
    }
    parts.push({ part_number: part.PartNumber, etag });
  }
  onProgress(0.96, 'Assembling the file…');
  await api('POST', '/open/partner/files/upload/complete-upload',
    { file_id: plan.FileId, upload_id: plan.UploadId, filetype, part_list: parts });
  onProgress(0.98, 'Reading the audio…');
  const detail = await api('POST', '/open/partner/records', { file_id: plan.FileId, title: file.name });
  await api('POST', `/open/partner/records/${encodeURIComponent(detail.record.record_id)}/tasks`,
    { task_type: 0, ...(diarize ? { diarization: { enabled: true } } : {}) });
  onProgress(1, 'Uploaded; transcribing.');
  return detail.record;
}
