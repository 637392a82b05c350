// A consumer of the public event topics, as a data engineer would write one (docs/events.md,
// "Consuming"): kafkajs reads every area's topic of one environment from the beginning
// (read_committed, kafkajs's default: a batch the publisher did not commit is never seen),
// validates every payload with Ajv against the schema its ce_dataschema header names (fetched
// once from the service's AsyncAPI document), drops a record whose ce_id it has seen (the
// documented de-duplication rule) and keeps a running count per event type.
//
//   node consumer.mjs --brokers HOST:PORT --asyncapi URL [--prefix svc] [--env test] [--idle-ms 5000]
//
// It stops once nothing new came for --idle-ms after the first record (a batch job; a service
// would keep running) and prints one JSON line: {"counts": {type: n}, "records": n,
// "duplicates": n, "invalid": [..], "outOfOrder": n}.
import { Kafka, logLevel } from 'kafkajs';
import Ajv from 'ajv';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
const brokers = args.brokers.split(',');
const prefix = args.prefix ?? 'svc';
const env = args.env ?? 'test';
const idleMs = Number(args['idle-ms'] ?? 5000);
const giveUpMs = Number(args['give-up-ms'] ?? 120000);

// The contract: its channels name the topics, its components hold each schema by version.
const contract = await (await fetch(args.asyncapi)).json();
const topics = Object.values(contract.channels).map((c) => c.address.replace('{prefix}', prefix).replace('{environment}', env));
const ajv = new Ajv({ strict: false });
const validators = new Map();
const validatorFor = (dataschema) => {
  if (!validators.has(dataschema)) {
    const pointer = dataschema.split('#')[1];  // /components/schemas/<type>.v<N>
    const schema = pointer.split('/').slice(1).reduce((node, key) => node?.[key], contract);
    validators.set(dataschema, schema ? ajv.compile(schema) : null);
  }
  return validators.get(dataschema);
};

const out = { counts: {}, records: 0, duplicates: 0, invalid: [], outOfOrder: 0 };
const seen = new Set();
const lastSeq = new Map();  // subject -> its last ce_svcseq: the order within a subject
const kafka = new Kafka({ clientId: 'svc-events-consumer', brokers, logLevel: logLevel.NOTHING });
const consumer = kafka.consumer({ groupId: `svc-events-consumer-${process.pid}` });
let idle = null;
let finished = false;
const finish = async (error) => {
  if (finished) return;
  finished = true;
  if (error) out.error = error;
  process.stdout.write(JSON.stringify(out) + '\n');
  await Promise.race([consumer.disconnect().catch(() => {}), new Promise((r) => setTimeout(r, 2000))]);
  process.exit(0);
};
setTimeout(() => finish('gave up'), giveUpMs);
await consumer.connect();
await consumer.subscribe({ topics, fromBeginning: true });
await consumer.run({
  eachMessage: async ({ topic, message }) => {
    const h = (k) => message.headers[k]?.toString();
    clearTimeout(idle);
    idle = setTimeout(() => finish(), idleMs);
    const id = h('ce_id');
    if (seen.has(id)) {
      out.duplicates++;
      return;
    }
    seen.add(id);
    const type = h('ce_type');
    const validate = validatorFor(h('ce_dataschema'));
    const payload = JSON.parse(message.value.toString());
    if (!validate || !validate(payload)) {
      out.invalid.push({ topic, type, id, errors: validate ? ajv.errorsText(validate.errors) : 'no schema' });
    }
    const subject = h('ce_subject');
    const seq = Number(h('ce_svcseq'));
    if (lastSeq.has(subject) && seq <= lastSeq.get(subject)) out.outOfOrder++;
    lastSeq.set(subject, seq);
    out.records++;
    out.counts[type] = (out.counts[type] ?? 0) + 1;
  },
});
