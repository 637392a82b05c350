// The capture widget (docs/embedded.md#the-widget): runs in the iframe the loader mounts, on the
// service's origin. It never trusts the parent page beyond what the session allows: the
// clientSecret is accepted only from a parent whose origin the session's policy lists, messages
// go back to that origin only, and the service checks the same origin again at init.
(() => {
  "use strict";
  const TEXT = {
    es: {
      title: "Verificación de identidad", loading: "Cargando…", steps: "Pasos",
      consentTitle: "Tu consentimiento", asks: (n) => `${n} te pide verificar tu identidad.`,
      notice: (n) => `Aviso de privacidad de ${n}`, noticeNew: " (se abre en otra pestaña)",
      consentText: "Para verificar tu identidad tomaremos fotografías de tu identificación oficial y de tu rostro, y un video corto. Los datos se tratan conforme a la LFPDPPP, se guardan cifrados y se usan solo para esta verificación; puedes ejercer tus derechos ARCO ante quien te pidió verificarte.",
      consentCheck: "Acepto el tratamiento de mis datos para esta verificación", accept: "Continuar", decline: "No acepto",
      document_front: "Frente de tu identificación", document_back: "Reverso de tu identificación", selfie: "Tu rostro",
      hint_document_front: "Coloca el frente de tu INE o pasaporte dentro del cuadro, con buena luz.",
      hint_document_back: "Ahora el reverso de tu identificación.",
      hint_selfie: "Mira a la cámara, sin lentes oscuros ni gorra.",
      take: "Tomar foto", file: "O elegir un archivo", camera: "Vista de la cámara", noCamera: "No hay cámara disponible: elige un archivo.",
      noCameraLiveness: "La prueba de vida necesita la cámara. Permite el acceso a la cámara o abre el enlace en tu teléfono.",
      fileVideo: "O elegir un video", fileVideoNote: "Un video elegido de un archivo lo revisará una persona.",
      uploading: "Enviando…", livenessTitle: "Prueba de vida", hint_liveness: "Mira a la cámara. Grabaremos unos segundos.",
      record: "Grabar", recording: "Grabando…", submitTitle: "Enviar", submitText: "Todo listo. Envía tu verificación.",
      submit: "Enviar verificación", processing: "Verificando…", retry: "Reintentar",
      approved: "Identidad verificada", declined: "No pudimos verificar tu identidad",
      review: "Tu verificación está en revisión", more_info: "Necesitamos más información",
      failed: "La sesión terminó", done: "Puedes cerrar esta ventana.",
      blink: "Parpadea", turn_left: "Gira a la izquierda", turn_right: "Gira a la derecha", smile: "Sonríe",
      nod: "Asiente con la cabeza", look_up: "Mira hacia arriba",
      stage: "Revisión: ", refused: "Esta página no puede mostrar la verificación.", continue: "Continuar",
      efirmaTitle: "Tu e.firma", hint_efirma: "Firma con tu e.firma (FIEL) del SAT: elige tu certificado (.cer) y tu llave privada (.key) y escribe su contraseña. La llave y la contraseña no salen de tu dispositivo: solo se envían el certificado y la firma.",
      efirmaCer: "Certificado (.cer)", efirmaKey: "Llave privada (.key)", efirmaPassword: "Contraseña de la llave privada",
      efirmaSign: "Firmar", efirmaSigning: "Firmando…", efirmaBadKey: "No se pudo abrir la llave: revisa el archivo .key y la contraseña.",
      efirmaKeyMismatch: "La llave privada no corresponde al certificado.", efirmaMissing: "Elige tu .cer y tu .key y escribe la contraseña.",
      efirmaFailed: "La e.firma no se pudo validar.", efirmaPassed: "e.firma validada",
      efirmaAgain: "Firmar con otra e.firma", efirmaSkip: "Continuar sin e.firma válida",
      efirmaSkipAsk: "Sin una e.firma válida es probable que tu verificación no se apruebe. ¿Continuar de todos modos?",
      efirmaSkipYes: "Sí, continuar", cancel: "Cancelar",
      efirmaReasons: {
        EFIRMA_EXPIRED: "Tu e.firma venció. Renuévala con el SAT (en SAT ID o en una oficina) y firma de nuevo.",
        EFIRMA_NOT_YET_VALID: "Tu e.firma aún no está vigente. Revisa la fecha de tu dispositivo o espera a que entre en vigor.",
        EFIRMA_REVOKED: "El SAT revocó esta e.firma. Usa una vigente.",
        EFIRMA_CHAIN_UNTRUSTED: "Ese certificado no es una e.firma del SAT. Elige el archivo .cer de tu e.firma.",
        EFIRMA_NOT_FIEL: "Ese certificado es un sello digital (CSD), no tu e.firma. Elige el .cer de tu e.firma (FIEL).",
        EFIRMA_KEY_USAGE: "Ese certificado no sirve para firmar. Elige el .cer de tu e.firma (FIEL).",
        EFIRMA_KEY_UNSUPPORTED: "Ese certificado usa un tipo de llave que no aceptamos. Usa tu e.firma del SAT.",
        EFIRMA_HOLDER_UNKNOWN: "El certificado no dice de quién es. Usa tu e.firma del SAT.",
        EFIRMA_RFC_MISMATCH: "El RFC de la e.firma no es el tuyo. Usa tu propia e.firma.",
        EFIRMA_CURP_MISMATCH: "La CURP de la e.firma no es la tuya. Usa tu propia e.firma.",
        EFIRMA_DOCUMENT_MISMATCH: "La e.firma no es de la persona de la identificación. Usa tu propia e.firma.",
        EFIRMA_SIGNATURE_INVALID: "La firma no corresponde al certificado. Elige la llave (.key) de ese certificado y firma de nuevo.",
        EFIRMA_OCSP_UNAVAILABLE: "No pudimos confirmar con el SAT que tu e.firma siga vigente. Inténtalo de nuevo en unos minutos.",
        EFIRMA_OCSP_UNKNOWN: "El SAT no reconoce este certificado. Elige el .cer de tu e.firma vigente.",
        EFIRMA_CERT_NOT_READY: "No pudimos leer el certificado. Elige el archivo .cer de tu e.firma.",
        default: "Revisa tus archivos y firma de nuevo.",
      },
      reviewText: "Una persona revisará tus datos. Suele tardar menos de 24 horas; quien te pidió la verificación te avisará del resultado.",
      moreInfoText: "Hace falta repetir una captura. Abre de nuevo el enlace o vuelve a la página para hacerlo.",
      moreInfoAsked: (list) => `Hace falta repetir: ${list}.`,
      reviewerSays: "Mensaje de quien revisó tu verificación:",
      kinds: { document_front: "el frente de tu identificación", document_back: "el reverso de tu identificación",
        selfie: "la foto de tu rostro", liveness_video: "la prueba de vida" },
      declinedHelp: "Si crees que es un error, comunícate con quien te pidió la verificación.",
      framedDone: "Continúa en la página.",
      declineReasons: {
        FACE_MISMATCH: "El rostro de la selfie no coincide con la foto de la identificación.",
        DOCUMENT_EXPIRED: "Tu identificación está vencida: se necesita una vigente.",
        LIVENESS_FAILED: "La prueba de vida no se superó: graba tu rostro en vivo, no una foto o una pantalla.",
        DEEPFAKE_SUSPECTED: "El video no parece tomado en vivo por la cámara.",
        IMAGE_QUALITY_LOW: "Las fotos no se ven con claridad: tómalas con buena luz y enfocadas.",
        GOV_CURP_NOT_FOUND: "La CURP de tu identificación no aparece en RENAPO.",
        INE_NOT_IN_LIST: "Tu credencial no aparece en la lista nominal del INE.",
        INE_CREDENTIAL_NOT_VALID: "El INE indica que tu credencial no está vigente.",
        DOCUMENT_DATA_INCONSISTENT: "Los datos de tu identificación no son consistentes entre sí.",
        GOV_DATA_MISMATCH: "Los datos de tu identificación no coinciden con los del registro oficial.",
      },
      stages: { document: "Identificación", liveness: "Prueba de vida", face_match: "Comparación de rostro", gov_curp: "CURP en RENAPO",
        gov_ine: "INE en la lista nominal", efirma: "e.firma", aml: "Listas de riesgo" },
      outcomes: { passed: "correcto", failed: "no superado", review: "a revisión", unavailable: "no disponible", skipped: "omitido",
        inconclusive: "no concluyente" },
      retakeTitle: "Vuelve a tomar la foto", useAnyway: "Usar esta foto de todos modos",
      handoff: "Continuar en tu teléfono", handoffTitle: "Continúa en tu teléfono",
      handoffText: "Escanea este código con la cámara de tu teléfono o abre el enlace en él. Sirve una vez y durante 10 minutos.",
      handoffQr: "Código QR con el enlace para continuar en tu teléfono", handoffWaiting: "Esperando a tu teléfono…",
      handoffSubmitted: "Tu teléfono envió la verificación.", cameraAgain: "Volver a intentar con la cámara",
      quality: {
        blurry: "La foto salió borrosa: mantén quieto el teléfono y espera a que enfoque.",
        glare: "Hay reflejos sobre la identificación: inclínala un poco o aléjate de la luz directa.",
        too_dark: "La foto está muy oscura: busca un lugar con más luz.",
        too_bright: "La foto tiene demasiada luz: evita la luz directa sobre la cámara.",
        low_resolution: { document: "La identificación se ve muy pequeña: acércala hasta que llene el cuadro.", selfie: "Acércate a la cámara." },
        no_face: { document: "No se ve la foto de tu identificación: que se vea completa y sin reflejos.", selfie: "No vemos tu rostro: mira de frente a la cámara." },
        multiple_faces: "Aparece más de una persona: asegúrate de estar solo en la foto.",
        face_too_small: { document: "Acerca la identificación a la cámara.", selfie: "Acércate a la cámara: tu rostro debe llenar el óvalo." },
        face_cut_off: "Tu rostro quedó cortado: colócalo completo dentro del óvalo.",
        text_unreadable: "No se pueden leer los datos de la identificación: que se vea completa, enfocada y sin reflejos.",
        unreadable: "No pudimos leer la foto: tómala de nuevo.",
        default: "La foto no quedó bien: tómala de nuevo.",
      },
      reload: "Volver a cargar",
      errors: {
        MEDIA_CONTENT_INVALID: "El archivo no es una foto o un video que podamos leer. Toma la foto con la cámara o elige una imagen JPEG o PNG.",
        UNSUPPORTED_MEDIA_TYPE: "Ese tipo de archivo no se acepta. Elige una foto JPEG o PNG, o un video.",
        PAYLOAD_TOO_LARGE: "El archivo es demasiado grande. Toma la foto con la cámara o elige uno más pequeño.",
        UNKNOWN_MEDIA_KIND: "Esta captura no se esperaba en este paso. Vuelve a cargar la página.",
        CAPTURE_NOT_ALLOWED: "Esta captura no está permitida en esta verificación. Vuelve a cargar la página.",
        CAPTURE_CREDENTIAL_INVALID: "El reto de la prueba de vida venció. Graba de nuevo.",
        CONSENT_REQUIRED: "Primero acepta el consentimiento. Vuelve a cargar la página.",
        SESSION_EXPIRED: "La sesión venció. Pide un nuevo enlace a quien te solicitó la verificación.",
        SESSION_INVALID: "La sesión ya no es válida. Pide un nuevo enlace a quien te solicitó la verificación.",
        SESSION_NOT_FOUND: "No encontramos esta verificación. Revisa el enlace o pide uno nuevo.",
        SESSION_ALREADY_USED: "Esta verificación ya se abrió en otra ventana. Continúa allí o pide un nuevo enlace.",
        SESSION_COMPLETED: "Esta verificación ya terminó. Puedes cerrar esta ventana.",
        SESSION_CANCELLED: "Esta verificación fue cancelada. Pide un nuevo enlace a quien te la solicitó.",
        SESSION_NOT_SUBMITTABLE: "Aún falta una captura. Vuelve a cargar la página para completarla.",
        ORIGIN_NOT_ALLOWED: "Esta página no puede mostrar la verificación. Ábrela desde el sitio de quien te la solicitó.",
        RATE_LIMITED: "Demasiados intentos seguidos. Espera un minuto e inténtalo de nuevo.",
        EFIRMA_CHALLENGE_EXPIRED: "La firma tardó demasiado. Firma de nuevo.",
        EFIRMA_CHALLENGE_ALREADY_USED: "Esa firma ya se usó. Firma de nuevo.",
        EFIRMA_KEY_NOT_OPENED: "No se pudo abrir la llave: revisa el archivo .key y la contraseña.",
        EFIRMA_KEY_MISMATCH: "La llave privada no corresponde al certificado.",
        NETWORK: "No hay conexión con el servicio. Revisa tu conexión a internet e inténtalo de nuevo.",
        default: "Algo salió mal. Inténtalo de nuevo; si se repite, vuelve a cargar la página.",
      }
    },
    en: {
      title: "Identity verification", loading: "Loading…", steps: "Steps",
      consentTitle: "Your consent", asks: (n) => `${n} asks you to verify your identity.`,
      notice: (n) => `${n}'s privacy notice`, noticeNew: " (opens in a new tab)",
      consentText: "To verify your identity we will take photos of your official ID and of your face, and a short video. The data is processed under Mexico's LFPDPPP, kept encrypted and used only for this verification; you may exercise your ARCO rights with whoever asked you to verify.",
      consentCheck: "I agree to the processing of my data for this verification", accept: "Continue", decline: "I do not agree",
      document_front: "Front of your ID", document_back: "Back of your ID", selfie: "Your face",
      hint_document_front: "Place the front of your INE or passport inside the frame, in good light.",
      hint_document_back: "Now the back of your ID.",
      hint_selfie: "Look at the camera, no sunglasses or cap.",
      take: "Take photo", file: "Or choose a file", camera: "Camera view", noCamera: "No camera available: choose a file.",
      noCameraLiveness: "The liveness check needs the camera. Allow camera access or open the link on your phone.",
      fileVideo: "Or choose a video", fileVideoNote: "A video chosen from a file is checked by a person.",
      uploading: "Sending…", livenessTitle: "Liveness check", hint_liveness: "Look at the camera. We will record a few seconds.",
      record: "Record", recording: "Recording…", submitTitle: "Submit", submitText: "All set. Send your verification.",
      submit: "Send verification", processing: "Verifying…", retry: "Try again",
      approved: "Identity verified", declined: "We could not verify your identity",
      review: "Your verification is under review", more_info: "We need more information",
      failed: "The session ended", done: "You may close this window.",
      blink: "Blink", turn_left: "Turn left", turn_right: "Turn right", smile: "Smile",
      nod: "Nod your head", look_up: "Look up",
      stage: "Checking: ", refused: "This page cannot show the verification.", continue: "Continue",
      efirmaTitle: "Your e.firma", hint_efirma: "Sign with your SAT e.firma (FIEL): choose your certificate (.cer) and private key (.key) and type its password. The key and the password never leave your device: only the certificate and the signature are sent.",
      efirmaCer: "Certificate (.cer)", efirmaKey: "Private key (.key)", efirmaPassword: "Private key password",
      efirmaSign: "Sign", efirmaSigning: "Signing…", efirmaBadKey: "The key could not be opened: check the .key file and the password.",
      efirmaKeyMismatch: "The private key is not the certificate's.", efirmaMissing: "Choose your .cer and .key and type the password.",
      efirmaFailed: "The e.firma could not be validated.", efirmaPassed: "e.firma validated",
      efirmaAgain: "Sign with another e.firma", efirmaSkip: "Continue without a valid e.firma",
      efirmaSkipAsk: "Without a valid e.firma your verification will probably not be approved. Continue anyway?",
      efirmaSkipYes: "Yes, continue", cancel: "Cancel",
      efirmaReasons: {
        EFIRMA_EXPIRED: "Your e.firma has expired. Renew it with the SAT (SAT ID or an office) and sign again.",
        EFIRMA_NOT_YET_VALID: "Your e.firma is not valid yet. Check your device's date or wait until it takes effect.",
        EFIRMA_REVOKED: "The SAT revoked this e.firma. Use a current one.",
        EFIRMA_CHAIN_UNTRUSTED: "That certificate is not a SAT e.firma. Choose your e.firma's .cer file.",
        EFIRMA_NOT_FIEL: "That certificate is a digital seal (CSD), not your e.firma. Choose your e.firma's (FIEL) .cer.",
        EFIRMA_KEY_USAGE: "That certificate cannot sign. Choose your e.firma's (FIEL) .cer.",
        EFIRMA_KEY_UNSUPPORTED: "That certificate uses a key type we do not accept. Use your SAT e.firma.",
        EFIRMA_HOLDER_UNKNOWN: "The certificate does not say whose it is. Use your SAT e.firma.",
        EFIRMA_RFC_MISMATCH: "The e.firma's RFC is not yours. Use your own e.firma.",
        EFIRMA_CURP_MISMATCH: "The e.firma's CURP is not yours. Use your own e.firma.",
        EFIRMA_DOCUMENT_MISMATCH: "The e.firma is not the ID holder's. Use your own e.firma.",
        EFIRMA_SIGNATURE_INVALID: "The signature does not match the certificate. Choose that certificate's key (.key) and sign again.",
        EFIRMA_OCSP_UNAVAILABLE: "We could not confirm with the SAT that your e.firma is current. Try again in a few minutes.",
        EFIRMA_OCSP_UNKNOWN: "The SAT does not know this certificate. Choose your current e.firma's .cer.",
        EFIRMA_CERT_NOT_READY: "We could not read the certificate. Choose your e.firma's .cer file.",
        default: "Check your files and sign again.",
      },
      reviewText: "A person will review your data. It usually takes less than 24 hours; whoever asked you to verify will tell you the result.",
      moreInfoText: "A capture has to be taken again. Open the link again or go back to the page to do it.",
      moreInfoAsked: (list) => `To be taken again: ${list}.`,
      reviewerSays: "A message from the person who reviewed your verification:",
      kinds: { document_front: "the front of your ID", document_back: "the back of your ID",
        selfie: "the photo of your face", liveness_video: "the liveness check" },
      declinedHelp: "If you think this is a mistake, contact whoever asked you to verify.",
      framedDone: "Continue on the page.",
      declineReasons: {
        FACE_MISMATCH: "The face in the selfie does not match the photo on the ID.",
        DOCUMENT_EXPIRED: "Your ID has expired: a current one is needed.",
        LIVENESS_FAILED: "The liveness check was not passed: record your face live, not a photo or a screen.",
        DEEPFAKE_SUSPECTED: "The video does not look recorded live by the camera.",
        IMAGE_QUALITY_LOW: "The photos are not clear: take them in good light and in focus.",
        GOV_CURP_NOT_FOUND: "The CURP on your ID is not in RENAPO.",
        INE_NOT_IN_LIST: "Your voter card is not in the INE's list.",
        INE_CREDENTIAL_NOT_VALID: "The INE says your voter card is not current.",
        DOCUMENT_DATA_INCONSISTENT: "The data on your ID is not consistent.",
        GOV_DATA_MISMATCH: "The data on your ID does not match the official registry.",
      },
      stages: { document: "ID document", liveness: "Liveness", face_match: "Face comparison", gov_curp: "CURP at RENAPO",
        gov_ine: "INE voter list", efirma: "e.firma", aml: "Risk lists" },
      outcomes: { passed: "passed", failed: "not passed", review: "to review", unavailable: "unavailable", skipped: "skipped",
        inconclusive: "inconclusive" },
      retakeTitle: "Take the photo again", useAnyway: "Use this photo anyway",
      handoff: "Continue on your phone", handoffTitle: "Continue on your phone",
      handoffText: "Scan this code with your phone's camera or open the link on it. It works once, for 10 minutes.",
      handoffQr: "QR code with the link to continue on your phone", handoffWaiting: "Waiting for your phone…",
      handoffSubmitted: "Your phone sent the verification.", cameraAgain: "Try the camera again",
      quality: {
        blurry: "The photo is blurry: hold the phone still and let the camera focus.",
        glare: "There is glare on the ID: tilt it a little or move away from direct light.",
        too_dark: "The photo is too dark: find more light.",
        too_bright: "The photo has too much light: avoid direct light on the camera.",
        low_resolution: { document: "The ID looks too small: bring it closer until it fills the frame.", selfie: "Move closer to the camera." },
        no_face: { document: "The photo on your ID cannot be seen: show all of it, without glare.", selfie: "We cannot see your face: look straight at the camera." },
        multiple_faces: "More than one person is in the picture: make sure only you are in it.",
        face_too_small: { document: "Bring the ID closer to the camera.", selfie: "Move closer to the camera: your face should fill the oval." },
        face_cut_off: "Your face is cut off: place all of it inside the oval.",
        text_unreadable: "The ID's text cannot be read: show all of it, in focus and without glare.",
        unreadable: "We could not read the photo: take it again.",
        default: "The photo did not come out well: take it again.",
      },
      reload: "Reload",
      errors: {
        MEDIA_CONTENT_INVALID: "The file is not a photo or video we can read. Take the photo with the camera or choose a JPEG or PNG image.",
        UNSUPPORTED_MEDIA_TYPE: "That kind of file is not accepted. Choose a JPEG or PNG photo, or a video.",
        PAYLOAD_TOO_LARGE: "The file is too large. Take the photo with the camera or choose a smaller one.",
        UNKNOWN_MEDIA_KIND: "This capture was not expected at this step. Reload the page.",
        CAPTURE_NOT_ALLOWED: "This capture is not allowed in this verification. Reload the page.",
        CAPTURE_CREDENTIAL_INVALID: "The liveness challenge expired. Record again.",
        CONSENT_REQUIRED: "Accept the consent first. Reload the page.",
        SESSION_EXPIRED: "The session expired. Ask whoever requested the verification for a new link.",
        SESSION_INVALID: "The session is no longer valid. Ask whoever requested the verification for a new link.",
        SESSION_NOT_FOUND: "We could not find this verification. Check the link or ask for a new one.",
        SESSION_ALREADY_USED: "This verification was opened in another window. Continue there or ask for a new link.",
        SESSION_COMPLETED: "This verification is finished. You may close this window.",
        SESSION_CANCELLED: "This verification was cancelled. Ask whoever requested it for a new link.",
        SESSION_NOT_SUBMITTABLE: "A capture is still missing. Reload the page to complete it.",
        ORIGIN_NOT_ALLOWED: "This page cannot show the verification. Open it from the site of whoever requested it.",
        RATE_LIMITED: "Too many attempts in a row. Wait a minute and try again.",
        EFIRMA_CHALLENGE_EXPIRED: "Signing took too long. Sign again.",
        EFIRMA_CHALLENGE_ALREADY_USED: "That signature was already used. Sign again.",
        EFIRMA_KEY_NOT_OPENED: "The key could not be opened: check the .key file and the password.",
        EFIRMA_KEY_MISMATCH: "The private key is not the certificate's.",
        NETWORK: "The service cannot be reached. Check your internet connection and try again.",
        default: "Something went wrong. Try again; if it happens again, reload the page.",
      }
    }
  };
  // The codes after which only a reload (or a new link) helps: the page offers the reload.
  const FATAL = new Set(["SESSION_EXPIRED", "SESSION_INVALID", "SESSION_NOT_FOUND", "SESSION_ALREADY_USED", "SESSION_COMPLETED",
    "SESSION_CANCELLED", "SESSION_NOT_SUBMITTABLE", "UNKNOWN_MEDIA_KIND", "CAPTURE_NOT_ALLOWED", "CONSENT_REQUIRED"]);
  const $ = (id) => document.getElementById(id);
  // Framed: /embed/v1/frame/<ems id>. Hosted (the link channel): /v/<link token>, full screen.
  const hosted = location.pathname.startsWith("/v/");
  const ems = hosted ? "" : location.pathname.split("/").pop();
  const state = { token: "", vrf: "", parent: "", steps: [], at: 0, mode: "passive", stream: null, redirect: "" };
  let t = TEXT.es;

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
      else if (v !== false && v !== undefined) e.setAttribute(k, v === true ? "" : v);
    }
    for (const k of kids) e.append(k);
    return e;
  }
  function say(msg, error) {
    $("status").textContent = msg || "";
    $("status").className = error ? "error" : "";
  }
  function tell(type, data) {
    if (state.parent) window.parent.postMessage(Object.assign({ source: "svc-embed", type, sessionId: ems }, data || {}), state.parent);
  }
  // A problem the applicant can meet, in their language, with what to do next; never the
  // service's `detail` (written for the integrator, in English). The integrator's page still gets
  // the code and the detail in the `error` event.
  function message(code) { return t.errors[code] || t.errors.default; }
  function fail(err) {
    const code = (err && err.code) || (err instanceof TypeError ? "NETWORK" : "WIDGET_ERROR");
    const loading = $("loading");
    if (loading) loading.remove();
    say(message(code), true);
    $("status").dataset.code = code;
    if (FATAL.has(code) && !$("reload")) {
      $("status").after(el("p", { class: "row", id: "reload-row" },
        el("button", { class: "secondary", id: "reload", on: { click: () => location.reload() } }, t.reload)));
    }
    tell("error", { code, message: (err && err.message) || String(err) });
    resize();
  }
  // The frame tells the loader how tall its content is, so the iframe fits it (no inner scroll).
  let lastHeight = 0;
  function resize() {
    const h = Math.ceil(document.body.getBoundingClientRect().height);  // the content, not the viewport
    if (h !== lastHeight && state.parent) {
      lastHeight = h;
      tell("resize", { height: h });
    }
  }
  if (window.ResizeObserver) new ResizeObserver(() => resize()).observe(document.body);
  async function call(method, path, body, form) {
    const headers = { Authorization: "Bearer " + state.token };
    if (body && !form) headers["Content-Type"] = "application/json";
    const r = await fetch(path, { method, headers, body: form ? body : body ? JSON.stringify(body) : undefined });
    const j = await r.json().catch(() => ({}));
    if (!r.ok) throw Object.assign(new Error(j.detail || j.title || "HTTP " + r.status), { code: j.code });
    return j;
  }
  function show(title, ...kids) {
    const s = $("screen");
    s.replaceChildren(el("h2", { id: "step-title" }, title), ...kids);
    s.focus();
  }
  function progress() {
    const names = { consent: t.consentTitle, liveness: t.livenessTitle, efirma: t.efirmaTitle, submit: t.submitTitle };
    $("progress").replaceChildren(...state.steps.map((s, i) =>
      el("li", { class: i < state.at ? "done" : i === state.at ? "now" : "", "aria-current": i === state.at ? "step" : false,
        "aria-label": (names[s] || t[s] || s) + (i < state.at ? " ✓" : "") })));
  }
  function stopCamera() {
    if (state.stream) state.stream.getTracks().forEach((tr) => tr.stop());
    state.stream = null;
  }
  async function camera(video, facing) {
    stopCamera();
    state.asked = { width: 1280, facingMode: facing };
    state.stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: facing, width: { ideal: 1280 } }, audio: false });
    video.srcObject = state.stream;
    await video.play();
    // The first frame on screen before a photo can be taken (a loaded machine may play before any
    // frame arrived: the photo would be black).
    await new Promise((resolve) => {
      if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(() => resolve());
      else if (video.readyState >= 2) resolve();
      else video.addEventListener("loadeddata", () => resolve(), { once: true });
    });
  }
  // How a capture was made (docs/biometrics.md#injection-signals), sent with it as captureFacts:
  // the camera's label, the track's settings and capabilities, what was asked, the recorder, and
  // the intervals between the frames the camera delivered (their capture times where the browser
  // gives them). The service seals them with the capture.
  const num = (x) => (typeof x === "number" && isFinite(x) && x >= 0 && x <= 100000 ? x : undefined);
  function frameTiming(video) {
    const timing = { last: 0, intervals: [], stop: false };
    if (!video.requestVideoFrameCallback) return timing;
    const tick = (now, md) => {
      const at = typeof md.captureTime === "number" ? md.captureTime : md.mediaTime * 1000;
      const d = at - timing.last;
      if (timing.last && d > 0 && d < 100000) {
        timing.intervals.push(Math.round(d * 1000) / 1000);
        if (timing.intervals.length > 600) timing.intervals.shift();
      }
      timing.last = at;
      if (!timing.stop) video.requestVideoFrameCallback(tick);
    };
    video.requestVideoFrameCallback(tick);
    return timing;
  }
  function factsOf(source, timing, recorderMime) {
    const track = source === "camera" && state.stream && state.stream.getVideoTracks()[0];
    if (!track) return { source };
    const s = track.getSettings ? track.getSettings() : {};
    const c = track.getCapabilities ? track.getCapabilities() : {};
    const range = (r) => (r && typeof r === "object" ? { min: num(r.min), max: num(r.max) } : undefined);
    const text = (x, n) => (typeof x === "string" ? x.slice(0, n) : undefined);
    return {
      source, device: { label: text(track.label, 256) || "" },
      settings: { width: num(s.width), height: num(s.height), frameRate: num(s.frameRate), facingMode: text(s.facingMode, 32) },
      capabilities: { width: range(c.width), height: range(c.height), frameRate: range(c.frameRate) },
      constraints: state.asked || undefined,
      recorder: recorderMime ? { api: "MediaRecorder", mimeType: recorderMime.slice(0, 128) } : undefined,
      frameIntervalsMs: timing ? timing.intervals.slice(-600) : undefined,
    };
  }
  async function upload(kind, blob, name, extra, analyze) {
    const form = new FormData();
    form.append("kind", kind);
    if (extra) for (const [k, v] of Object.entries(extra)) form.append(k, v);
    form.append("file", blob, name);
    say(t.uploading);
    const r = await call("POST", `/v1/verification-sessions/${state.vrf}/media${analyze ? "?analyze=true" : ""}`, form, true);
    say("");
    return r;
  }
  // The live frame's guide: where the document (a card's proportions) or the face (an oval) goes.
  function viewport(video, shape) {
    return el("div", { class: "viewport" }, video, el("div", { class: "guide " + shape, "aria-hidden": "true" }));
  }
  function next() {
    stopCamera();
    state.at += 1;
    // On a return asked for more information, the steps it did not ask for are passed by.
    while (state.skip && state.at < state.steps.length && state.skip(state.steps[state.at])) state.at += 1;
    run();
  }
  function run() {
    progress();
    const step = state.steps[state.at];
    tell("step", { step, index: state.at, total: state.steps.length });
    ({ consent, document_front: photo, document_back: photo, selfie: photo, liveness, efirma, submit }[step] || submit)(step);
    // What a "more information" asked for stays under each step's title until the submission.
    const title = $("step-title");
    if (state.askedMessage && title) title.after(reviewerWords(state.askedMessage, "asked-message"));
    if (state.askedNote && title) title.after(el("p", { id: "asked" }, state.askedNote));
  }

  function consent() {
    const box = el("input", { type: "checkbox", id: "consent-check" });
    const go = el("button", { id: "consent-accept", disabled: true, on: { click: () => answer(true) } }, t.accept);
    box.addEventListener("change", () => { go.disabled = !box.checked; });
    const no = el("button", { class: "secondary", id: "consent-decline", on: { click: () => answer(false) } }, t.decline);
    // Who asks, and their privacy notice (aviso de privacidad), before anything is collected.
    const who = state.integrator && state.integrator.name;
    const url = state.integrator && state.integrator.privacyNoticeUrl;
    const asks = who ? el("p", { id: "consent-integrator" }, t.asks(who)) : "";
    const notice = who && /^https?:\/\//.test(url || "")
      ? el("p", {}, el("a", { id: "privacy-notice", href: url, target: "_blank", rel: "noopener noreferrer" },
          t.notice(who), el("span", { class: "visually-hidden" }, t.noticeNew)))
      : "";
    show(t.consentTitle, asks, el("div", { class: "consent", id: "consent-text", tabindex: "0" }, t.consentText), notice,
      el("label", { class: "check", for: "consent-check" }, box, t.consentCheck), el("div", { class: "row" }, go, no));
    async function answer(accepted) {
      go.disabled = no.disabled = true;
      try {
        await call("POST", `/v1/verification-sessions/${state.vrf}/consent`, { accepted, policyVersion: "widget-consent/v1" });
        if (accepted) next();
        else outcome("failed");
      } catch (e) { fail(e); go.disabled = !box.checked; no.disabled = false; }
    }
  }

  // A photo step: sent with the capture analysis (?analyze=true); a photo with quality issues is
  // refused with what to do about each (the step stays, the next photo replaces it). From the
  // second refusal the person may also keep the photo they have (the service then judges it).
  function photo(kind) {
    const selfie = kind === "selfie";
    const video = el("video", { autoplay: true, playsinline: true, muted: true, class: selfie ? "mirror" : "", "aria-label": t.camera });
    const take = el("button", { id: "take", disabled: true, on: { click: snap } }, t.take);
    const input = el("input", { type: "file", id: "file", accept: "image/jpeg,image/png", on: { change: picked } });
    const hints = el("div", { id: "quality", "aria-live": "polite" });
    show(t[kind], el("p", { class: "muted", id: "step-hint" }, t["hint_" + kind]), viewport(video, selfie ? "face" : "card"), hints,
      el("div", { class: "row" }, take, el("label", { class: "file", for: "file" }, input, t.file)));
    let timing = null, busy = false;
    camera(video, selfie ? "user" : "environment").then(() => { take.disabled = busy; timing = frameTiming(video); }, () => say(t.noCamera));
    let attempts = 0;
    function hintFor(issue) {
      const h = t.quality[issue] || t.quality.default;
      return typeof h === "string" ? h : h[selfie ? "selfie" : "document"];
    }
    async function send(blob, name, source) {
      take.disabled = busy = true;  // one photo at a time: the camera starting meanwhile leaves it off
      attempts += 1;
      try {
        const facts = factsOf(source, timing);
        const r = await upload(kind, blob, name, { captureSource: source, captureFacts: JSON.stringify(facts) }, true);
        const a = r.analysis || {};
        const issues = a.status === "error" ? ["unreadable"] : (a.qualityIssues || []);
        tell("capture", { kind, attempt: attempts, accepted: issues.length === 0, issues });
        busy = false;
        if (!issues.length) return next();
        const list = el("ul", { id: "quality-hints", "data-issues": issues.join(" ") }, ...issues.map((i) => el("li", { "data-issue": i }, hintFor(i))));
        hints.replaceChildren(el("h3", { class: "retake" }, t.retakeTitle), list);
        if (attempts >= 2) {
          hints.append(el("p", { class: "row" }, el("button", { class: "secondary", id: "use-anyway", on: { click: next } }, t.useAnyway)));
        }
        input.value = "";
        say(t.retakeTitle, true);
        $("status").dataset.code = "QUALITY_" + issues[0].toUpperCase();
        take.disabled = !state.stream;
        resize();
      } catch (e) { busy = false; fail(e); take.disabled = !state.stream; }
    }
    function snap() {
      if (!video.videoWidth) return;  // no frame yet
      const c = document.createElement("canvas");
      c.width = video.videoWidth;
      c.height = video.videoHeight;
      c.getContext("2d").drawImage(video, 0, 0);
      c.toBlob((b) => send(b, kind + ".jpg", "camera"), "image/jpeg", 0.92);
    }
    function picked() {
      const f = input.files && input.files[0];
      if (f) send(f, f.name, "file");
    }
  }

  function liveness() {
    const video = el("video", { autoplay: true, playsinline: true, muted: true, class: "mirror", "aria-label": t.camera });
    const prompt = el("p", { class: "prompt", id: "prompt", "aria-live": "assertive" });
    const rec = el("button", { id: "record", disabled: true, on: { click: record } }, t.record);
    const row = el("div", { class: "row" }, rec);
    // From the camera, passive or active: a chosen file could be any recording of anyone (a
    // replay). Only a flow whose liveness step allows a file (passive) offers one, and the upload
    // says so (captureSource "file"): the service then sends the session to a reviewer.
    const fileAllowed = state.fileLiveness && state.mode !== "active";
    let input = null;
    if (fileAllowed) {
      input = el("input", { type: "file", id: "file", accept: "video/mp4,video/webm", on: { change: picked } });
      row.append(el("label", { class: "file", for: "file" }, input, t.fileVideo));
    }
    show(t.livenessTitle, el("p", { class: "muted" }, t.hint_liveness), viewport(video, "face"), prompt, row,
      fileAllowed ? el("p", { class: "muted", id: "file-note" }, t.fileVideoNote) : "");
    // No camera here (a computer, a camera refused): the same session goes on on a phone (the
    // handoff), or the camera is tried again (issue 69, item 8).
    const away = el("button", { class: "secondary", id: "handoff", on: { click: () => handoff().catch(fail) } }, t.handoff);
    row.append(away);
    let timing = null;
    const start = () => camera(video, "user").then(() => { rec.disabled = false; say(""); }, () => {
      say(fileAllowed ? t.noCamera : t.noCameraLiveness, !fileAllowed);
      if (!$("camera-again")) away.after(el("button", { class: "secondary", id: "camera-again", on: { click: start } }, t.cameraAgain));
      if (!fileAllowed) away.focus();
    });
    start();
    async function picked() {
      const f = input.files && input.files[0];
      if (!f) return;
      rec.disabled = true;
      try {
        await upload("liveness_video", f, f.name, { captureSource: "file", captureFacts: JSON.stringify(factsOf("file")) });
        next();
      } catch (e) { fail(e); rec.disabled = !state.stream; }
    }
    async function record() {
      rec.disabled = true;
      try {
        let actions = [], challengeId = "";
        if (state.mode === "active") {
          const ch = await call("POST", `/v1/verification-sessions/${state.vrf}/liveness-challenges`);
          actions = ch.actions || [];
          challengeId = ch.challengeId;
        }
        const type = MediaRecorder.isTypeSupported("video/webm;codecs=vp8") ? "video/webm;codecs=vp8" : "video/webm";
        const recorder = new MediaRecorder(state.stream, { mimeType: type });
        const chunks = [];
        recorder.ondataavailable = (e) => { if (e.data.size) chunks.push(e.data); };
        const stopped = new Promise((resolve) => { recorder.onstop = resolve; });
        recorder.start();
        timing = frameTiming(video);  // the frames of the recording
        say(t.recording);
        const prompts = actions.length ? actions : [""];
        for (const a of prompts) {
          prompt.textContent = a ? (t[a] || a) : "";
          await new Promise((r) => setTimeout(r, actions.length ? 2000 : 3000));
        }
        recorder.stop();
        await stopped;
        timing.stop = true;
        prompt.textContent = "";
        const facts = JSON.stringify(factsOf("camera", timing, type));
        await upload("liveness_video", new Blob(chunks, { type: "video/webm" }), "liveness.webm",
          challengeId ? { challengeId, captureSource: "camera", captureFacts: facts } : { captureSource: "camera", captureFacts: facts });
        next();
      } catch (e) { fail(e); rec.disabled = false; }
    }
  }

  // The handoff (docs/embedded.md#handoff): a QR code and a short link that open this session, where
  // it is, on a phone (once, for 10 minutes); this page then follows what the phone does and shows
  // the verdict of its submission.
  let qrLoading = null;
  function loadQr() {
    if (window.qrcode) return Promise.resolve(window.qrcode);
    qrLoading = qrLoading || new Promise((resolve, reject) => {
      const sc = el("script", { src: "/embed/v1/vendor/qrcode-2.0.4.js" });
      sc.onload = () => resolve(window.qrcode);
      sc.onerror = () => { qrLoading = null; reject(new Error("qrcode-generator did not load")); };
      document.head.append(sc);
    });
    return qrLoading;
  }
  async function handoff() {
    stopCamera();
    const h = await call("POST", `/v1/verification-sessions/${state.vrf}/handoff`);
    const qrcode = await loadQr();
    const qr = qrcode(0, "M");
    qr.addData(h.url);
    qr.make();
    const waiting = el("p", { id: "handoff-status", role: "status" }, t.handoffWaiting);
    show(t.handoffTitle, el("p", {}, t.handoffText),
      el("img", { id: "handoff-qr", src: qr.createDataURL(5, 4), alt: t.handoffQr, width: qr.getModuleCount() * 5 + 40 }),
      el("p", {}, el("a", { id: "handoff-link", href: h.url, target: "_blank", rel: "noopener noreferrer" }, h.url)), waiting);
    tell("handoff", { expiresAt: h.expiresAt });
    // The stream replays the session from its start: a submission after the latest one known when
    // this page opened is the phone's, and its verdict ends this page too.
    const es = progressStream();
    let past = !state.tracking, phone = "";
    es.addEventListener("verification.session_submitted", (m) => {
      const d = JSON.parse(m.data || "{}");
      if (d.trackingId === state.tracking) { past = true; return; }
      if (!past) return;
      phone = d.trackingId;
      waiting.textContent = t.handoffSubmitted;
    });
    onVerdict(es, (tracking) => phone !== "" && tracking === phone);
  }

  // node-forge, served by the service itself, loaded on this step only.
  let forgeLoading = null;
  function loadForge() {
    if (window.forge) return Promise.resolve(window.forge);
    forgeLoading = forgeLoading || new Promise((resolve, reject) => {
      const sc = el("script", { src: "/embed/v1/vendor/forge-1.4.3.min.js" });
      sc.onload = () => resolve(window.forge);
      sc.onerror = () => { forgeLoading = null; reject(new Error("node-forge did not load")); };
      document.head.append(sc);
    });
    return forgeLoading;
  }
  function bytesOf(file) {
    return file.arrayBuffer().then((b) => {
      const u = new Uint8Array(b);
      let s = "";
      for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
      return s;  // a binary string, as forge takes it
    });
  }

  // The e.firma possession proof (docs/embedded.md#efirma): the applicant's .key is opened with
  // their password and used here, in the browser; only the .cer and the signature are sent.
  function efirma() {
    const cer = el("input", { type: "file", id: "efirma-cer", accept: ".cer,application/pkix-cert,application/x-x509-ca-cert" });
    const key = el("input", { type: "file", id: "efirma-key", accept: ".key,application/pkcs8" });
    const pw = el("input", { type: "password", id: "efirma-password", autocomplete: "off", spellcheck: "false" });
    const go = el("button", { id: "efirma-sign", on: { click: sign } }, t.efirmaSign);
    const result = el("p", { id: "efirma-result", "aria-live": "polite" });
    show(t.efirmaTitle, el("p", { class: "muted" }, t.hint_efirma),
      el("label", { class: "field", for: "efirma-cer" }, t.efirmaCer, cer),
      el("label", { class: "field", for: "efirma-key" }, t.efirmaKey, key),
      el("label", { class: "field", for: "efirma-password" }, t.efirmaPassword, pw),
      el("div", { class: "row" }, go), result);
    async function sign() {
      const c = cer.files && cer.files[0], k = key.files && key.files[0];
      if (!c || !k || !pw.value) return say(t.efirmaMissing, true);
      go.disabled = true;
      say(t.efirmaSigning);
      try {
        const forge = await loadForge();
        const [cerBytes, keyBytes] = await Promise.all([bytesOf(c), bytesOf(k)]);
        let privateKey;
        try {
          const info = forge.pki.decryptPrivateKeyInfo(forge.asn1.fromDer(keyBytes), pw.value);
          if (!info) throw new Error("wrong password");
          privateKey = forge.pki.privateKeyFromAsn1(info);
        } catch (e) {
          throw Object.assign(new Error(t.efirmaBadKey), { code: "EFIRMA_KEY_NOT_OPENED" });
        }
        pw.value = "";
        try {
          const cert = forge.pki.certificateFromAsn1(forge.asn1.fromDer(cerBytes));
          if (cert.publicKey.n && cert.publicKey.n.compareTo(privateKey.n) !== 0) {
            throw Object.assign(new Error(t.efirmaKeyMismatch), { code: "EFIRMA_KEY_MISMATCH" });
          }
        } catch (e) {
          if (e.code === "EFIRMA_KEY_MISMATCH") throw e;  // else a certificate forge cannot read: the service judges it
        }
        const ch = await call("POST", `/v1/verification-sessions/${state.vrf}/efirma/challenges`);
        const md = forge.md.sha256.create();
        md.update(ch.challenge, "utf8");
        const signature = forge.util.encode64(privateKey.sign(md));
        privateKey = null;
        const r = await call("POST", `/v1/verification-sessions/${state.vrf}/efirma`,
          { challengeId: ch.challengeId, certificate: forge.util.encode64(cerBytes), signature });
        result.dataset.status = r.status;
        tell("efirma", { status: r.status, reasonCodes: r.reasonCodes });
        if (r.status === "passed") {
          say(t.efirmaPassed);
          next();
          return;
        }
        // What went wrong, each reason in words with what to do (never a raw code), then the way
        // on: sign again (the form stays above), or continue without — which asks first.
        say(t.efirmaFailed, true);
        const reasons = (r.reasonCodes || []).map((c) => el("li", { "data-code": c }, t.efirmaReasons[c] || t.efirmaReasons.default));
        const skip = el("button", { class: "secondary", id: "efirma-continue", on: { click: ask } }, t.efirmaSkip);
        result.replaceChildren(el("ul", { id: "efirma-reasons" }, ...(reasons.length ? reasons : [el("li", {}, t.efirmaReasons.default)])),
          el("div", { class: "row" }, skip));
        go.textContent = t.efirmaAgain;
        go.disabled = false;
        function ask() {
          const yes = el("button", { id: "efirma-continue-confirm", on: { click: next } }, t.efirmaSkipYes);
          const no = el("button", { class: "secondary", id: "efirma-continue-cancel", on: { click: () => { box.remove(); skip.hidden = false; skip.focus(); } } }, t.cancel);
          const box = el("div", { role: "alertdialog", "aria-labelledby": "efirma-ask", id: "efirma-confirm" },
            el("p", { id: "efirma-ask" }, t.efirmaSkipAsk), el("div", { class: "row" }, yes, no));
          skip.hidden = true;
          result.append(box);
          yes.focus();
        }
      } catch (e) { fail(e); go.disabled = false; }
    }
  }

  function submit() {
    const go = el("button", { id: "submit", on: { click: send } }, t.submit);
    show(t.submitTitle, el("p", {}, t.submitText), el("div", { class: "row" }, go));
    async function send() {
      go.disabled = true;
      try {
        const r = await call("POST", `/v1/verification-sessions/${state.vrf}/submit`);
        state.tracking = r.trackingId || "";
        tell("submitted", {});
        watch();
      } catch (e) { fail(e); go.disabled = false; }
    }
  }

  function watch() {
    const list = el("ul", { class: "events", id: "events" });
    show(t.processing, list);
    say(t.processing);
    const es = progressStream();
    es.addEventListener("verification.stage_completed", (m) => {
      const d = JSON.parse(m.data);
      list.append(el("li", { "data-stage": d.stage }, (t.stages[d.stage] || d.stage) + ": " + (t.outcomes[d.outcome] || d.outcome)));
    });
    // The verdict of this submission, never one a resubmission followed (the stream replays the
    // session from its start).
    onVerdict(es, (tracking) => !(state.tracking && tracking && tracking !== state.tracking));
  }

  // The session's progress stream (the applicant token in the query: EventSource sends no header).
  function progressStream() {
    return new EventSource(`/v1/verification-sessions/${state.vrf}/events?access_token=${encodeURIComponent(state.token)}`);
  }
  // Ends the page on the first verdict (or the expiry) of `es` whose submission `mine` accepts.
  const VERDICTS = { "verification.approved": "approved", "verification.declined": "declined",
    "verification.review_required": "review", "verification.more_info_requested": "more_info",
    "verification.session_expired": "failed" };
  function onVerdict(es, mine) {
    for (const [type, status] of Object.entries(VERDICTS)) {
      es.addEventListener(type, (m) => {
        const d = JSON.parse(m.data || "{}");
        if (!mine(d.trackingId)) return;
        es.close();
        if (d.trackingId) state.tracking = d.trackingId;
        outcome(status, d.reasonCodes || []);
      });
    }
  }

  // A reviewer's words for the applicant, quoted as written (text, never markup).
  function reviewerWords(message, id) {
    return el("div", { id, class: "reviewer-words" }, el("p", {}, t.reviewerSays), el("blockquote", {}, message));
  }

  // The end of the page for this session: what happened in words a person can act on, and where
  // to go now (issue 69, item 7).
  function outcome(status, reasons) {
    stopCamera();
    state.at = state.steps.length;
    progress();
    say("");
    const mark = { approved: "✓", declined: "✕", failed: "✕", review: "⌛", more_info: "!" }[status] || "";
    const box = el("div", { class: "outcome " + status, id: "outcome", "data-status": status },
      el("div", { class: "mark", "aria-hidden": "true" }, mark), el("h2", { id: "step-title" }, t[status]));
    if (status === "review") box.append(el("p", { id: "outcome-text" }, t.reviewText));
    if (status === "more_info") {
      // What is asked, as the session says it now (the captures and the reviewer's words).
      const text = el("p", { id: "outcome-text" }, t.moreInfoText);
      box.append(text);
      call("GET", `/v1/verification-sessions/${state.vrf}`).then((s) => {
        const asked = s.requestedInput || {};
        if ((asked.captures || []).length) {
          text.before(el("p", { id: "outcome-asked" }, t.moreInfoAsked(asked.captures.map((k) => t.kinds[k] || k).join(", "))));
        }
        if (asked.message) text.before(reviewerWords(asked.message, "outcome-message"));
        resize();
      }).catch(() => {});
    }
    if (status === "declined") {
      const why = (reasons || []).map((c) => t.declineReasons[c]).filter(Boolean);
      if (why.length) box.append(el("ul", { id: "outcome-reasons" }, ...why.map((x) => el("li", {}, x))));
      box.append(el("p", { id: "outcome-text" }, t.declinedHelp));
    }
    if (/^https?:\/\//.test(state.redirect)) {
      // The hosted page of a link session: back to the integrator, with the session and its status.
      const u = new URL(state.redirect);
      u.searchParams.set("verificationSessionId", state.vrf);
      u.searchParams.set("status", status);
      box.append(el("p", {}, el("a", { href: u.href, id: "continue", class: "button" }, t.continue)));
    } else {
      // Framed in the integrator's page, the page goes on (there is no window of ours to close).
      box.append(el("p", { class: "muted", id: "outcome-next" }, state.parent ? t.framedDone : t.done));
    }
    $("screen").replaceChildren(box);
    $("screen").focus();
    tell("completed", { status });
  }

  async function init(message) {
    // Only a parent the session allows gets to hand over the secret (and hear back).
    const policy = await fetch(`/v1/embedded/sessions/${ems}/policy`).then((r) => r.json());
    if (!Array.isArray(policy.allowedOrigins) || !policy.allowedOrigins.includes(message.origin)) {
      return fail(Object.assign(new Error("the parent page's origin is not allowed"), { code: "ORIGIN_NOT_ALLOWED" }));
    }
    const r = await fetch("/v1/embedded/sessions/init", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ clientSecret: message.data.clientSecret, parentOrigin: message.origin }),
    });
    const j = await r.json().catch(() => ({}));
    state.parent = message.origin;
    if (!r.ok) return fail(Object.assign(new Error(j.detail || j.title), { code: j.code }));
    start(j, message.data.locale);
  }

  function start(j, locale) {
    state.token = j.applicantToken;
    state.vrf = j.verificationSessionId;
    state.steps = j.flow.steps;
    state.mode = j.flow.livenessMode;
    state.fileLiveness = j.flow.livenessFileAllowed === true;
    state.redirect = j.redirectUrl || "";
    state.integrator = j.integrator || null;
    const lang = String(locale || j.locale || "es").slice(0, 2).toLowerCase();
    t = TEXT[lang] || TEXT.es;
    document.documentElement.lang = TEXT[lang] ? lang : "es";
    document.title = t.title;
    $("title").textContent = t.title;
    $("progress").setAttribute("aria-label", t.steps);
    tell("ready", { verificationSessionId: state.vrf, steps: state.steps });
    resume(j.verificationStatus, j.resume || {});
  }

  // Where the session is now (issue 69): an answered session shows its outcome, a running
  // submission its progress, an open one the first step it still needs; consent is never asked
  // twice, and a capture made since the last submission is not asked again.
  function resume(status, r) {
    const ended = { approved: "approved", declined: "declined", review: "review", abandoned: "failed", cancelled: "failed" }[status];
    state.tracking = r.submission || "";
    if (ended) return outcome(ended);
    if (r.processing) {
      state.at = Math.max(0, state.steps.indexOf("submit"));
      return watch();
    }
    const kinds = { document_front: "document_front", document_back: "document_back", selfie: "selfie", liveness: "liveness_video" };
    const captured = new Set(r.capturedKinds || []);
    // Asked for more information: only the captures the verdict named, and the reviewer's words
    // (issue 69, item 5).
    const asked = status === "awaiting_input" ? r.requestedInput || {} : {};
    const requested = status === "awaiting_input" ? new Set(asked.captures || r.requestedCaptures || []) : new Set();
    state.askedMessage = asked.message || "";
    state.skip = (s) => (s === "consent" && r.consentGiven) || (kinds[s] && captured.has(kinds[s])) ||
      (kinds[s] && requested.size > 0 && !requested.has(kinds[s]));
    state.at = 0;
    while (state.at < state.steps.length && state.skip(state.steps[state.at])) state.at += 1;
    state.askedNote = requested.size ? t.moreInfoAsked([...requested].map((k) => t.kinds[k] || k).join(", ")) : "";
    run();
  }

  if (hosted) {
    // The link is the credential: swapped for an applicant token by the page, not by the GET.
    fetch("/embed/v1/hosted/init", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ linkToken: decodeURIComponent(location.pathname.slice(3)) }),
    }).then(async (r) => {
      const j = await r.json().catch(() => ({}));
      if (!r.ok) throw Object.assign(new Error(j.detail || j.title || "HTTP " + r.status), { code: j.code });
      start(j, new URLSearchParams(location.search).get("locale"));
    }).catch(fail);
    return;
  }

  window.addEventListener("message", (m) => {
    if (m.source !== window.parent || !m.data || m.data.source !== "svc-embed-loader") return;
    if (m.data.type === "init" && !state.token && !state.parent) init(m).catch(fail);
  });
  // Carries no secret: it only asks the parent for the clientSecret.
  window.parent.postMessage({ source: "svc-embed", type: "hello", sessionId: ems }, "*");
})();
