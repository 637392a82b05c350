#pragma once
// The `svc` commands of the composition root; main.cc dispatches to them, and to the modules'
// (api/http/module.h: CliVerb; `svc aml`, `svc audit`, `svc export-bulk` are the kyb, audit and
// persons modules'). Each parses its own flags and returns the
// process exit code (0 ok, 1 failed, 2 usage).

namespace svc::api::cli {

int Serve(int argc, char** argv);        // serve.cc: the service
int Admin(int argc, char** argv);        // tenants, keys, the delivery queue
int AdminEmbedded(int argc, char** argv);  // flows and applications (embedded_cli.cc)
int Replay(int argc, char** argv);       // rebuild read models; --verify
int DevBroker(int argc, char** argv);    // librdkafka's mock cluster for development and CI
int KafkaCheck(int argc, char** argv);   // what the Kafka log relies on, checked on an operator's brokers
int Certificate(int argc, char** argv);  // verify a certificate; print a signing public key
int Models(int argc, char** argv);       // import the face-recognition model
int Blobs(int argc, char** argv);        // blobs_cli.cc: copy a data directory's blobs into a bucket
int Backup(int argc, char** argv);       // backup_cli.cc: svc backup, svc restore
int Restore(int argc, char** argv);
int OpenApi();                           // print the OpenAPI document
int AsyncApi(int argc, char** argv);     // print the AsyncAPI document of the event topics
int DocsErrors();                        // print the error catalogue

}  // namespace svc::api::cli
