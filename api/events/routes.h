#pragma once
// The events area: the public event topics (docs/events.md). Its contract (the AsyncAPI document)
// is served by the HTTP edge beside the OpenAPI one (api/http/asyncapi.h); this module runs the
// publisher (pipeline/events/publisher.h) where --public-topics asks for it.

namespace svc::api {
struct Module;
}

namespace svc::api::events {

// The area as a module (module.cc): its flags and the publisher.
const Module& EventsModule();

}  // namespace svc::api::events
