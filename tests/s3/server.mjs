// The S3-compatible server of the tests: s3rver (the S3 REST API over a directory) behind a
// front that checks every request's AWS Signature Version 4 with the AWS SDK's own signer
// (@smithy/signature-v4) and its payload hash, and refuses a mismatch as S3 does (403
// SignatureDoesNotMatch, 400 XAmzContentSHA256Mismatch): s3rver itself checks only version 2
// signatures. So our signing is checked by code nobody here wrote.
//
//   node server.mjs DIR [BUCKET]      prints "port N" once it listens on 127.0.0.1
//
// Credentials S3RVER / S3RVER (s3rver's account), region us-east-1, path-style or virtual-host
// addressing (Host: BUCKET.localhost:N). For the fault tests, POST /__faults {"next": [..]} makes
// the next requests fail in order: "500" (InternalError), "503" (SlowDown), "stall" (the request
// is read and never answered), "reset" (the connection is dropped). GET /__log lists the
// requests seen ({method, path, status}).
import http from 'node:http';
import { createHash } from 'node:crypto';
import S3rver from 's3rver';
import { SignatureV4 } from '@smithy/signature-v4';
import { Hash } from '@smithy/hash-node';

const [dir, bucket = 'svc-test'] = process.argv.slice(2);
const SECRETS = { S3RVER: 'S3RVER' };
const backend = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir,
                             configureBuckets: [{ name: bucket }] });
const { port: backendPort } = await backend.run();
const faults = [];
const log = [];

function xmlError(res, status, code, message) {
  res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': 'TEST' + Date.now() });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

// RFC 3986 strict, as S3 re-encodes a path before it checks the signature.
const strict = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

async function verify(req, body) {
  const auth = req.headers.authorization || '';
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return 'the Authorization header is not a SigV4 one: ' + auth;
  const [, keyId, , region, signedList, signature] = m;
  const secret = SECRETS[keyId];
  if (!secret) return 'unknown access key ' + keyId;
  const signed = signedList.split(';');
  if (!signed.includes('host') || !signed.includes('x-amz-date')) return 'host and x-amz-date must be signed';
  const payload = req.headers['x-amz-content-sha256'];
  if (!payload) return 'no x-amz-content-sha256';
  if (payload !== 'UNSIGNED-PAYLOAD' && payload !== createHash('sha256').update(body).digest('hex')) {
    return 'XAmzContentSHA256Mismatch';
  }
  const [rawPath, rawQuery = ''] = req.url.split('?');
  const path = rawPath.split('/').map((s) => strict(decodeURIComponent(s))).join('/');
  const query = {};
  for (const part of rawQuery.split('&').filter(Boolean)) {
    const i = part.indexOf('=');
    const k = decodeURIComponent(i < 0 ? part : part.slice(0, i));
    const v = i < 0 ? '' : decodeURIComponent(part.slice(i + 1));
    query[k] = k in query ? [].concat(query[k], v) : v;
  }
  const headers = {};
  for (const name of signed) {
    const v = req.headers[name];
    if (v === undefined) return 'signed header ' + name + ' is missing';
    headers[name] = Array.isArray(v) ? v.join(',') : v;
  }
  const d = req.headers['x-amz-date'];
  const signingDate = new Date(`${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(9, 11)}:${d.slice(11, 13)}:${d.slice(13, 15)}Z`);
  const signer = new SignatureV4({ credentials: { accessKeyId: keyId, secretAccessKey: secret }, region,
                                   service: 's3', sha256: Hash.bind(null, 'sha256'), uriEscapePath: false,
                                   applyChecksum: false });
  const out = await signer.sign({ method: req.method, protocol: 'http:', hostname: headers.host, path, query,
                                  headers, body }, { signingDate, signableHeaders: new Set(signed) });
  const expected = /Signature=([0-9a-f]{64})/.exec(out.headers.authorization)[1];
  return expected === signature ? null : 'SignatureDoesNotMatch';
}

const front = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks);
  if (req.url === '/__faults' && req.method === 'POST') {
    faults.push(...JSON.parse(body.toString()).next);
    res.end('{}');
    return;
  }
  if (req.url === '/__log') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(log));
    return;
  }
  const entry = { method: req.method, path: req.url, status: 0 };
  log.push(entry);
  const fault = faults.shift();
  if (fault === 'stall') return;  // read, never answered
  if (fault === 'reset') { req.socket.destroy(); return; }
  if (fault === '500') { entry.status = 500; return xmlError(res, 500, 'InternalError', 'injected'); }
  if (fault === '503') { entry.status = 503; return xmlError(res, 503, 'SlowDown', 'Please reduce your request rate.'); }
  const problem = await verify(req, body);
  if (problem === 'XAmzContentSHA256Mismatch') {
    entry.status = 400;
    return xmlError(res, 400, problem, 'The provided x-amz-content-sha256 header does not match what was computed.');
  }
  if (problem) {
    entry.status = 403;
    return xmlError(res, 403, 'SignatureDoesNotMatch', problem.replace(/[<>&]/g, ''));
  }
  // Virtual-host addressing (BUCKET.localhost:N) is turned into path style for s3rver.
  let url = req.url;
  const host = (req.headers.host || '').split(':')[0];
  if (host.endsWith('.localhost')) url = '/' + host.slice(0, -'.localhost'.length) + (url.startsWith('/') ? url : '/' + url);
  const headers = { ...req.headers, host: '127.0.0.1:' + backendPort, 'content-length': String(body.length) };
  delete headers['transfer-encoding'];
  const up = http.request({ host: '127.0.0.1', port: backendPort, method: req.method, path: url, headers }, (r) => {
    entry.status = r.statusCode;
    res.writeHead(r.statusCode, r.headers);
    r.pipe(res);
  });
  up.on('error', (e) => xmlError(res, 500, 'InternalError', e.message));
  up.end(body);
});
front.listen(0, '127.0.0.1', () => console.log('port ' + front.address().port));
process.on('SIGTERM', async () => { front.close(); await backend.close(); process.exit(0); });
