// Reads the events topic with kafkajs (a Kafka client nobody here wrote), as a downstream
// analytics consumer would, and separates domain events from control records by their
// CloudEvents type header: control records are `svc.*` (the writer fences), domain events are
// everything else and carry the JSON envelope.
//
//   node kafka_consumer.mjs <brokers> <topic> <until ce_type> <partitions> <give up after ms>
//
// Stops once it has read a record of type <until> and the first record of every partition.
// Prints one JSON line: {"domain":[{type,id,partition,envelopeType,tenantId}], "control":[...]}.
import { Kafka, logLevel } from "kafkajs";

const [brokers, topic, until, partitions, giveUpMs] = process.argv.slice(2);
const kafka = new Kafka({ clientId: "svc-test", brokers: brokers.split(","), logLevel: logLevel.NOTHING });
const consumer = kafka.consumer({ groupId: "svc-test-kafkajs-" + process.pid });
const out = { domain: [], control: [], error: null };
const firstSeen = new Set();
let sawUntil = false;
let done = false;
const finish = async () => {
  if (done) return;
  done = true;
  process.stdout.write(JSON.stringify(out) + "\n");
  // Leave the group politely, but never wait on it for long.
  await Promise.race([consumer.disconnect().catch(() => {}), new Promise((r) => setTimeout(r, 2000))]);
  process.exit(0);
};
setTimeout(() => { out.error = "gave up"; finish(); }, Number(giveUpMs));
await consumer.connect();
await consumer.subscribe({ topic, fromBeginning: true });
await consumer.run({
  eachMessage: async ({ partition, message }) => {
    const h = (k) => (message.headers[k] ? message.headers[k].toString() : null);
    const type = h("ce_type");
    firstSeen.add(partition);
    if (type && type.startsWith("svc.")) {
      out.control.push({ type, partition, offset: message.offset });
    } else {
      const env = JSON.parse(message.value.toString());
      out.domain.push({ type, id: h("ce_id"), partition, envelopeType: env.type, envelopeId: env.id,
                        tenantId: env.tenantId, key: message.key ? message.key.toString() : null });
      if (type === until) sawUntil = true;
    }
    if (sawUntil && firstSeen.size === Number(partitions)) await finish();
  },
});
