// The official AWS SDK for JavaScript (@aws-sdk/client-s3) on the tests' S3 server, so that what
// the service stores is read back, and what the service reads is written, by code nobody here
// wrote.
//
//   node sdk.mjs ENDPOINT BUCKET get KEY [FILE]  prints the object's SHA-256 (hex) and size
//                                                (and writes its bytes to FILE)
//   node sdk.mjs ENDPOINT BUCKET put KEY FILE    stores FILE's bytes at KEY
//   node sdk.mjs ENDPOINT BUCKET list PREFIX     prints each key under PREFIX, one a line
//
// Credentials S3RVER / S3RVER, region us-east-1, path-style addressing.
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { S3Client, GetObjectCommand, PutObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';

process.removeAllListeners('warning');
const [endpoint, bucket, verb, key, file] = process.argv.slice(2);
const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true,
                          credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
if (verb === 'get') {
  const r = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const bytes = Buffer.from(await r.Body.transformToByteArray());
  if (file) writeFileSync(file, bytes);
  console.log(createHash('sha256').update(bytes).digest('hex') + ' ' + bytes.length);
} else if (verb === 'put') {
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: readFileSync(file) }));
  console.log('ok');
} else if (verb === 'list') {
  let token;
  do {
    const r = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key, ContinuationToken: token }));
    for (const o of r.Contents ?? []) console.log(o.Key);
    token = r.NextContinuationToken;
  } while (token);
} else {
  console.error('usage: sdk.mjs ENDPOINT BUCKET get|put|list ...');
  process.exit(2);
}
