// svc serve --roles: which sets of roles a process may run, and what it says about the others.
#include <doctest/doctest.h>

#include "api/http/roles.h"

namespace api_roles_test {

using svc::api::Role;
using svc::api::Roles;

TEST_CASE("roles: all by default, any subset on kafka when what each needs is there") {
  auto all = Roles::Parse({"all"}, "embedded");
  REQUIRE(all.ok());
  CHECK(all->IsAll());
  CHECK(all->Names() ==
        std::vector<std::string>{"api", "writer", "projector", "pipeline", "webhooks", "timers", "worker"});
  // Named one by one, in any order, the set is all as well.
  auto named = Roles::Parse({"timers", "webhooks", "worker", "pipeline", "projector", "writer", "api"}, "embedded");
  REQUIRE(named.ok());
  CHECK(named->IsAll());

  auto reader = Roles::Parse({"projector"}, "kafka");
  REQUIRE(reader.ok());
  CHECK(reader->Has(Role::kProjector));
  CHECK_FALSE(reader->Has(Role::kWriter));
  CHECK_FALSE(reader->IsAll());
  CHECK(reader->Names() == std::vector<std::string>{"projector"});

  auto writer = Roles::Parse({"writer"}, "kafka");
  REQUIRE(writer.ok());
  CHECK(writer->Names() == std::vector<std::string>{"writer"});

  auto workers = Roles::Parse({"writer", "projector", "pipeline"}, "kafka");
  REQUIRE(workers.ok());
  CHECK(workers->Has(Role::kPipeline));
  CHECK_FALSE(workers->Has(Role::kApi));
}

TEST_CASE("roles: what is refused, and why") {
  auto unknown = Roles::Parse({"api", "reader"}, "kafka");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().message().find("unknown role 'reader'") != std::string::npos);

  auto none = Roles::Parse({}, "kafka");
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message().find("at least one role") != std::string::npos);

  // The embedded log belongs to the one process that holds the data directory.
  auto embedded = Roles::Parse({"projector"}, "embedded");
  REQUIRE_FALSE(embedded.ok());
  CHECK(embedded.status().message().find("--log-backend kafka") != std::string::npos);

  // api, pipeline, webhooks and timers read the read models this process builds.
  for (const char* role : {"api", "pipeline", "webhooks", "timers"}) {
    CAPTURE(role);
    auto no_reads = Roles::Parse({role, "writer"}, "kafka");
    REQUIRE_FALSE(no_reads.ok());
    CHECK(no_reads.status().message().find("add projector") != std::string::npos);
    // ... and, with one writer, decide the commands they issue in their own process; in a
    // cluster the commands travel to their partition's writer.
    auto no_writer = Roles::Parse({role, "projector"}, "kafka");
    REQUIRE_FALSE(no_writer.ok());
    CHECK(no_writer.status().message().find("add writer") != std::string::npos);
    // In a cluster the api's commands travel to their writer; the process managers act for the
    // partitions their own process writes.
    auto cluster = Roles::Parse({role, "projector"}, "kafka", "group");
    if (std::string_view(role) == "api") {
      REQUIRE(cluster.ok());
      CHECK_FALSE(cluster->Has(Role::kWriter));
    } else {
      REQUIRE_FALSE(cluster.ok());
      CHECK(cluster.status().message().find("partitions its own process writes") != std::string::npos);
    }
  }
}

TEST_CASE("roles: a worker takes a cluster's verification jobs, with its own read models and no writer") {
  auto worker = Roles::Parse({"projector", "worker"}, "kafka", "group");
  REQUIRE(worker.ok());
  CHECK(worker->Has(Role::kWorker));
  CHECK_FALSE(worker->Has(Role::kWriter));
  CHECK(worker->Names() == std::vector<std::string>{"projector", "worker"});

  auto no_reads = Roles::Parse({"worker"}, "kafka", "group");
  REQUIRE_FALSE(no_reads.ok());
  CHECK(no_reads.status().message().find("add projector") != std::string::npos);

  // Without a cluster there is no jobs topic: the pipeline role runs the jobs in its process.
  auto single = Roles::Parse({"projector", "worker", "writer"}, "kafka");
  REQUIRE_FALSE(single.ok());
  CHECK(single.status().message().find("--kafka-writers group") != std::string::npos);
}

}  // namespace api_roles_test
