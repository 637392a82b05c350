// A consumer of the public event topics, as a data engineer would write one (docs/events.md,
// "Consuming"): kafkajs reads every area's topic of one environment from the beginning
// (read_committed, kafkajs's default: on Kafka a batch the publisher did not commit is never seen;
// librdkafka's mock cluster behind `svc dev-broker` reports no aborted transaction, so there a
// killed publisher's uncommitted batch can show), validates every payload with Ajv against the
// schema its ce_dataschema header names (fetched once from the service's AsyncAPI document), drops
// a record whose ce_id it has seen (the documented de-duplication rule; `duplicatesDiffering`
// counts second copies that are not the same event, which must never happen) and keeps a running
// count per event type.
//
//   node consumer.mjs --brokers HOST:PORT --asyncapi URL [--prefix svc] [--env test] [--idle-ms 5000]
//
// It stops once nothing new came for --idle-ms after the first record (a batch job; a service
// would keep running) and prints one JSON line: {"counts": {type: n}, "records": n,
// "duplicates": n, "invalid": [..], "outOfOrder": n}.
//
// With --state it reads the state topics instead (the compacted <area>.state channels): the latest
// record per key wins, a null value (tombstone) removes the key, and it prints {"states": {type:
// n}, "statuses": {type: {status: n}}, "tombstoned": [key, ..], "records": n, "invalid": [..]}:
// what a new consumer knows without replaying the history.
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
const stateMode = 'state' in args;

// The contract: its channels name the topics, its components hold each schema by version.
const contract = await (await fetch(args.asyncapi)).json();
const topics = Object.values(contract.channels)
  .filter((c) => (c['x-svc-kind'] === 'state') === stateMode)
  .map((c) => c.address.replace('{prefix}', prefix).replace('{environment}', env));
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

const out = stateMode ? { records: 0, invalid: [] }
  : { counts: {}, records: 0, duplicates: 0, duplicatesDiffering: 0, invalid: [], outOfOrder: 0 };
const latest = new Map();  // state mode: topic/key -> {type, value|null}
const seen = new Map();  // ce_id -> what its first copy said (position and payload)
const lastSeq = new Map();  // subject -> its last ce_svcseq: the order within a subject
const kafka = new Kafka({ clientId: 'svc-events-consumer', brokers, logLevel: logLevel.NOTHING });
const consumer = kafka.consumer({ groupId: `svc-events-consumer-${process.pid}` });
let idle = null;
let finished = false;
const finish = async (error) => {
  if (finished) return;
  finished = true;
  if (error) out.error = error;
  if (stateMode) {
    out.states = {};
    out.statuses = {};
    out.tombstoned = [];
    for (const [key, { type, value }] of latest) {
      if (value === null) {
        out.tombstoned.push(key.split('/').slice(1).join('/'));
        continue;
      }
      out.states[type] = (out.states[type] ?? 0) + 1;
      out.statuses[type] ??= {};
      out.statuses[type][value.status] = (out.statuses[type][value.status] ?? 0) + 1;
    }
  }
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
    if (stateMode) {
      // The latest record per key is the state; null is a tombstone.
      out.records++;
      const type = h('ce_type');
      const value = message.value === null ? null : JSON.parse(message.value.toString());
      if (value !== null) {
        const validate = validatorFor(h('ce_dataschema'));
        if (!validate || !validate(value)) {
          out.invalid.push({ topic, type, errors: validate ? ajv.errorsText(validate.errors) : 'no schema' });
        }
      }
      latest.set(`${topic}/${message.key.toString()}`, { type, value });
      return;
    }
    const id = h('ce_id');
    const copy = `${h('ce_svcpos')}|${message.value?.toString()}`;
    if (seen.has(id)) {
      // The rule: an event is its ce_id, keep the first. A second copy must be the same event.
      out.duplicates++;
      if (seen.get(id) !== copy) out.duplicatesDiffering++;
      (out.duplicated ??= []).push({ topic, id, type: h('ce_type'), pos: h('ce_svcpos'), offset: message.offset });
      return;
    }
    seen.set(id, copy);
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
