// svc embed loader (docs/embedded.md#the-widget). The integrator's page includes
//   <script src="https://<service>/embed/v1/loader.js"></script>
// and mounts the capture widget with the clientSecret its backend (or the browser create) got:
//   const widget = SvcEmbed.mount(document.getElementById("kyc"), {
//     clientSecret, locale: "es", onEvent: (e) => console.log(e.type, e) });
// Events: ready, step, efirma ({status, reasonCodes}), submitted, completed ({status}), error ({code, message}),
// resize ({height}: the loader sets the iframe's height to its content's itself). The frame talks
// only to this page's origin, and this script only to the service's origin.
(() => {
  "use strict";
  const script = document.currentScript;
  const service = new URL(script ? script.src : "/", location.href).origin;
  function mount(element, options) {
    const o = options || {};
    const secret = String(o.clientSecret || "");
    const ems = secret.split("_secret_")[0];
    if (!/^ems_[0-9a-f]{32}$/.test(ems) || ems === secret) throw new Error("SvcEmbed.mount: clientSecret is not an embedded session's secret");
    const frame = document.createElement("iframe");
    frame.src = `${service}/embed/v1/frame/${ems}`;
    frame.title = o.title || "Verificación de identidad";
    frame.allow = "camera; microphone";
    frame.setAttribute("referrerpolicy", "no-referrer");
    frame.style.cssText = "border:0;width:100%;height:640px";
    const emit = (e) => { if (typeof o.onEvent === "function") o.onEvent(e); };
    function listen(m) {
      if (m.origin !== service || m.source !== frame.contentWindow || !m.data || m.data.source !== "svc-embed") return;
      if (m.data.type === "hello") {
        // To the service's frame only; again when it reloads (the service takes the secret back from
        // this page's origin a few times, and the frame resumes where the session is).
        frame.contentWindow.postMessage({ source: "svc-embed-loader", type: "init", clientSecret: secret, locale: o.locale }, service);
        return;
      }
      if (m.data.type === "resize") {  // the frame fits its content (at least 320 px)
        const h = Number(m.data.height);
        if (Number.isFinite(h) && h > 0) frame.style.height = Math.max(320, Math.min(h, 4000)) + "px";
      }
      const e = Object.assign({}, m.data);
      delete e.source;
      emit(e);
    }
    window.addEventListener("message", listen);
    element.replaceChildren(frame);
    return { frame, unmount() { window.removeEventListener("message", listen); frame.remove(); } };
  }
  window.SvcEmbed = { mount, version: "1" };
})();
