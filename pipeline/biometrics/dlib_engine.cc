#include "pipeline/biometrics/dlib_engine.h"

#include <cmath>

#include "core/crypto.h"

#include "pipeline/biometrics/ocr.h"
#include "pipeline/biometrics/quality.h"
#include "pipeline/biometrics/video.h"

namespace svc::pipeline::biometrics {

namespace v = verification;

double FaceMatchScore(double distance) { return 1.0 / (1.0 + std::exp(12.0 * (distance - 0.715))); }


std::shared_ptr<const DlibEngine::Seen> DlibEngine::Look(const v::Capture& c) {
  std::string key = core::Sha256(c.bytes);
  {
    std::lock_guard lock(cache_mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) {
      cache_order_.remove(key);
      cache_order_.push_front(key);
      return it->second;
    }
  }
  auto img = DecodeImage(c.bytes);
  if (!img.ok()) return nullptr;
  auto seen = std::make_shared<Seen>();
  // An INE's back has no portrait: its faces are never used, detection is skipped.
  if (c.kind != "document_back") seen->faces = models_->Detect(*img);
  seen->image = std::move(img).value();
  std::lock_guard lock(cache_mu_);
  if (cache_.emplace(key, seen).second) {
    cache_order_.push_front(key);
    while (cache_order_.size() > kCacheEntries) {
      cache_.erase(cache_order_.back());
      cache_order_.pop_back();
    }
  }
  return seen;
}

Embedding DlibEngine::DocumentEmbedding(const v::Capture& document, const Image& image,
                                        const Face& face) {
  std::string key = core::Sha256(document.bytes);
  {
    std::lock_guard lock(cache_mu_);
    if (auto it = embeddings_.find(key); it != embeddings_.end()) return it->second;
  }
  Embedding e = models_->Embed(models_->Chip(image, face));
  std::lock_guard lock(cache_mu_);
  if (embeddings_.emplace(key, e).second) {
    embedding_order_.push_front(key);
    while (embedding_order_.size() > kCacheEntries) {
      embeddings_.erase(embedding_order_.back());
      embedding_order_.pop_back();
    }
  }
  return e;
}

std::shared_ptr<const DlibEngine::SideRead> DlibEngine::ReadSide(const v::Capture& c,
                                                                 const documents::Date& today) {
  // Keyed by the bytes and the day (the CURP's century and the MRZ's two-digit years use it).
  std::string key = core::Sha256(c.bytes) + "|" + today.Iso();
  {
    std::lock_guard lock(cache_mu_);
    if (auto it = reads_.find(key); it != reads_.end()) return it->second;
  }
  auto r = std::make_shared<SideRead>();
  auto seen = Look(c);
  if (seen != nullptr) {
    auto page = OcrRead(seen->image);
    if (page.ok()) {
      const std::string* text = &page->text;
      r->readable = true;
      r->curp = FindCurp(*text, today);
      r->mrz = FindMrz(*text, today);
      r->names = FindPrintedNames(seen->image, *page);
      for (const char* w : {"INSTITUTONACIONALELECTORAL", "CREDENCIALPARAVOTAR", "ELECTORAL"}) {
        r->ine_words |= text->find(w) != std::string::npos;
      }
    }
  }
  std::lock_guard lock(cache_mu_);
  if (reads_.emplace(key, r).second) {
    read_order_.push_front(key);
    while (read_order_.size() > kCacheEntries) {
      reads_.erase(read_order_.back());
      read_order_.pop_back();
    }
  }
  return r;
}

std::shared_ptr<const DlibEngine::VideoSeen> DlibEngine::LookVideo(const v::Capture& c) {
  std::string key = core::Sha256(c.bytes);
  for (const auto& a : c.challenge) key += "|" + a;
  {
    std::lock_guard lock(cache_mu_);
    auto it = videos_.find(key);
    if (it != videos_.end()) {
      video_order_.remove(key);
      video_order_.push_front(key);
      return it->second;
    }
  }
  auto seen = std::make_shared<VideoSeen>();
  auto video = SampleVideo(c.bytes, kLivenessFrames, kLivenessMaxSide);
  if (video.ok() && !video->frames.empty()) {
    seen->readable = true;
    seen->repeats = video->repeats;
    seen->comparable = video->comparable;
    seen->liveness = AssessLiveness(*models_, video->frames, c.challenge);
    if (seen->liveness.best_frame >= 0) {
      seen->best_frame = std::move(video->frames[static_cast<size_t>(seen->liveness.best_frame)]);
      seen->best_faces = models_->Detect(seen->best_frame);
    }
  }
  std::lock_guard lock(cache_mu_);
  if (videos_.emplace(key, seen).second) {
    video_order_.push_front(key);
    while (video_order_.size() > kVideoCacheEntries) {
      videos_.erase(video_order_.back());
      video_order_.pop_back();
    }
  }
  return seen;
}

v::CaptureAnalysisResult DlibEngine::Analyze(const v::Capture& c, const v::EngineContext& ctx) {
  v::CaptureAnalysisResult r;
  if (c.kind == "liveness_video") {
    // Liveness measured at upload: the same assessment the liveness stage uses (cached).
    auto seen = LookVideo(c);
    if (!seen->readable) {
      r.status = "error";
      r.error_code = "VIDEO_UNREADABLE";
      r.retry_hints.push_back("record the video again");
      return r;
    }
    const LivenessResult& l = seen->liveness;
    double share = l.frames > 0 ? static_cast<double>(l.frames_with_one_face) / l.frames : 0.0;
    r.confidence = std::round(share * 10000.0) / 10000.0;
    r.liveness_score = l.score;
    auto has = [&](const char* reason) {
      return std::find(l.reasons.begin(), l.reasons.end(), reason) != l.reasons.end();
    };
    if (has("MULTIPLE_FACES")) {
      r.quality_issues.push_back("multiple_faces");
      r.retry_hints.push_back("make sure only you are in the video");
    } else if (has("FACE_NOT_CONTINUOUS")) {
      r.quality_issues.push_back("no_face");
      r.retry_hints.push_back("keep your face in the frame for the whole video");
    } else if (has("LIVENESS_CHALLENGE_FAILED")) {
      r.quality_issues.push_back("challenge_not_followed");
      r.retry_hints.push_back("get a new challenge and do its actions in order, starting face to face");
    } else if (!l.blink && c.challenge.empty()) {
      r.quality_issues.push_back("no_blink");
      r.retry_hints.push_back("look at the camera and blink once while recording");
    }
    return r;
  }
  auto seen = Look(c);
  if (seen == nullptr) {
    r.status = "error";
    r.error_code = c.mime == "image/webp" ? "IMAGE_FORMAT_UNSUPPORTED" : "IMAGE_UNREADABLE";
    r.retry_hints.push_back(c.mime == "image/webp" ? "send the photo as JPEG or PNG"
                                                   : "take the photo again");
    return r;
  }
  const Image* img = &seen->image;
  const auto& faces = seen->faces;
  bool selfie = c.kind == "selfie";
  auto q = AssessQuality(*img, faces, selfie ? CaptureKind::kSelfie : CaptureKind::kDocument);
  if (c.kind == "document_back") {
    // The back of an INE has no portrait: face findings do not apply.
    std::vector<std::string> issues, hints;
    for (size_t i = 0; i < q.issues.size(); ++i) {
      if (q.issues[i] == "no_face" || q.issues[i] == "face_too_small" || q.issues[i] == "face_cut_off") continue;
      issues.push_back(q.issues[i]);
      hints.push_back(q.hints[i]);
    }
    q.issues = issues;
    q.hints = hints;
  }
  r.quality_issues = q.issues;
  r.retry_hints = q.hints;
  if (c.kind == "document_front" || c.kind == "document_back") {
    const SideRead& side = *ReadSide(c, ctx.today);
    if (side.mrz) {
      r.document_type = side.mrz->result.document_code.rfind("P", 0) == 0 ? "passport" : "ine";
      r.issuing_country = side.mrz->result.issuing_state;
      r.extracted = {{"mrz", side.mrz->lines}, {"documentNumber", side.mrz->result.document_number}};
      r.skip_back = r.document_type == "passport";  // a passport's data page is all there is
    } else if (side.curp || side.ine_words) {
      r.document_type = "ine";
      r.issuing_country = "MEX";
      r.requires_back_page = c.kind == "document_front";
    }
    if (side.curp) {
      if (!r.extracted.is_object()) r.extracted = core::Json::object();
      r.extracted["curp"] = *side.curp;
    }
    if (!side.mrz && !side.curp) {
      r.quality_issues.push_back("text_unreadable");
      r.retry_hints.push_back("hold the document flat, in focus, filling the frame");
    }
  }
  const Face* f = Largest(faces);
  if (f != nullptr && c.kind != "document_back") {
    // Confidence that a usable face is there: the detector's margin, squashed to 0..1.
    r.confidence = std::round(1.0 / (1.0 + std::exp(-2.0 * f->detection_score)) * 10000.0) / 10000.0;
  }
  return r;
}

std::optional<double> DlibEngine::ImageQuality(const v::Capture& c, const v::EngineContext&) {
  if (c.kind == "liveness_video") return std::nullopt;
  auto seen = Look(c);
  if (seen == nullptr) return 0.0;
  const Image* img = &seen->image;
  auto faces = c.kind == "document_back" ? std::vector<Face>{} : seen->faces;
  auto q = AssessQuality(*img, faces, c.kind == "selfie" ? CaptureKind::kSelfie : CaptureKind::kDocument);
  if (c.kind == "document_back") {
    double penalty = 0;
    for (const auto& i : q.issues) penalty += i == "no_face" ? 0 : 0.25;
    return std::max(0.0, 1.0 - penalty);
  }
  return q.score;
}

v::DocumentReading DlibEngine::ReadDocument(const v::Capture& front, const v::Capture* back,
                                            const v::EngineContext& ctx) {
  v::DocumentReading r;
  const SideRead f = *ReadSide(front, ctx.today);
  const SideRead b = back != nullptr ? *ReadSide(*back, ctx.today) : SideRead{};
  if (!f.readable && !b.readable) {
    r.status = "error";
    r.error_code = "DOCUMENT_UNREADABLE";
    return r;
  }
  std::optional<MrzRead> mrz = b.mrz ? b.mrz : f.mrz;
  std::optional<std::string> curp = f.curp ? f.curp : b.curp;
  if (!mrz && !curp) {
    r.status = "error";
    r.error_code = "DOCUMENT_TEXT_NOT_FOUND";  // neither an MRZ nor a CURP could be read
    return r;
  }
  if (mrz) {
    const auto& m = mrz->result;
    r.document_type = m.document_code.rfind("P", 0) == 0 ? "passport"
                      : m.issuing_state == "MEX"         ? "ine"
                                                         : "id_card";
    r.issuing_country = m.issuing_state;
    r.extracted["mrz"] = mrz->lines;
    r.extracted["documentNumber"] = m.document_number;
    if (r.document_type == "ine") r.extracted["cic"] = m.document_number;
    const documents::NameParts names = documents::MrzNames(m);
    r.extracted["surname1"] = names.surname1;
    r.extracted["surname2"] = names.surname2;
    r.extracted["givenNames"] = names.given_names;
    if (m.birth_date) r.extracted["birthDate"] = m.birth_date->Iso();
    if (m.expiry_date) r.extracted["expiryDate"] = m.expiry_date->Iso();
    if (m.sex == 'F' || m.sex == 'M') r.extracted["sex"] = std::string(1, m.sex);  // ICAO letters
  } else {
    r.document_type = f.ine_words || curp ? "ine" : "";
    r.issuing_country = "MEX";
  }
  if (curp) {
    auto c = core::mx::CheckCurp(*curp, ctx.today);
    r.extracted["curp"] = *curp;
    r.extracted["birthDate"] = c.birth_date.Iso();
    r.extracted["sex"] = documents::CurpSexToIcao(std::string(1, c.sex));
  }
  // The names: the front's printed ones where they agree with the MRZ (whose name field stops at
  // 30 characters) and the CURP, else the MRZ's (docs/biometrics.md#names).
  if (f.names || mrz) {
    std::optional<documents::NameParts> from_mrz;
    if (mrz) from_mrz = documents::MrzNames(mrz->result);
    std::optional<documents::NameParts> printed = f.names;
    if (printed && !mrz) {
      // Without the MRZ to check them, the printed names count only from a clean front: glare can
      // wipe a name's last letters, which the CURP's letters cannot see.
      auto seen = Look(front);
      if (seen == nullptr) {
        printed.reset();
      } else {
        auto q = AssessQuality(seen->image, seen->faces, CaptureKind::kDocument);
        for (const auto& issue : q.issues) {
          if (issue == "glare" || issue == "blurry") printed.reset();
        }
      }
    }
    auto chosen = documents::ReconcileNames(printed, from_mrz, curp ? std::string_view(*curp) : std::string_view());
    if (!chosen.source.empty()) {
      r.extracted["surname1"] = chosen.names.surname1;
      r.extracted["surname2"] = chosen.names.surname2;
      r.extracted["givenNames"] = chosen.names.given_names;
      r.extracted["namesSource"] = chosen.source;  // not personal: which side the names came from
    }
  }
  // An INE's MRZ is on its back: without it the back is asked for.
  r.requires_back_page = r.document_type == "ine" && !mrz;
  r.confidence = 0.5 + (curp ? 0.25 : 0.0) + (mrz ? 0.25 : 0.0);
  return r;
}

v::BiometricScore DlibEngine::Liveness(const v::Capture& c, const v::EngineContext&) {
  v::BiometricScore r;
  r.model_name = kLivenessModelName;
  auto seen = LookVideo(c);
  if (!seen->readable) {
    r.status = "error";
    r.error_code = "VIDEO_UNREADABLE";
    return r;
  }
  const LivenessResult& l = seen->liveness;
  r.score = l.score;
  r.reasons = l.reasons;
  r.details = {{"mode", c.challenge.empty() ? "passive" : "active"},
               {"frames", l.frames},
               {"framesWithOneFace", l.frames_with_one_face},
               {"blink", l.blink},
               {"blinkRatio", l.blink_ratio},
               {"parallax", l.parallax},
               {"yawMin", l.yaw_min},
               {"yawMax", l.yaw_max},
               {"actionsSeen", l.actions},
               {"challenge", c.challenge},
               {"reasons", l.reasons}};
  if (!c.challenge.empty()) r.details["challengePassed"] = l.challenge_passed;
  return r;
}

v::BiometricScore DlibEngine::FaceMatch(const v::Capture& face, const v::Capture& document,
                                        const v::EngineContext&) {
  v::BiometricScore r;
  r.model_name = FaceModels::kRecognitionModelName;
  core::Result<Image> selfie = core::InvalidArgument("no face image");
  std::vector<Face> video_faces;
  if (face.kind == "liveness_video") {
    // No selfie: the liveness video's frame with the largest face.
    auto video = LookVideo(face);
    if (video->readable && !video->best_faces.empty()) {
      selfie = video->best_frame;
      video_faces = video->best_faces;
    }
  }
  std::shared_ptr<const Seen> selfie_seen = face.kind == "liveness_video" ? nullptr : Look(face);
  if (selfie_seen != nullptr) selfie = selfie_seen->image;
  auto doc_seen = Look(document);
  if (!selfie.ok() || doc_seen == nullptr) {
    r.status = "error";
    r.error_code = !selfie.ok() ? "SELFIE_UNREADABLE" : "DOCUMENT_UNREADABLE";
    return r;
  }
  const Image* doc = &doc_seen->image;
  const auto& selfie_faces = selfie_seen != nullptr ? selfie_seen->faces : video_faces;
  const auto& doc_faces = doc_seen->faces;
  const Face* a = Largest(selfie_faces);
  const Face* b = Largest(doc_faces);
  if (a == nullptr || b == nullptr) {
    r.status = "error";
    r.error_code = a == nullptr ? "NO_FACE_IN_SELFIE" : "NO_FACE_ON_DOCUMENT";
    return r;
  }
  Embedding mine = models_->Embed(models_->Chip(*selfie, *a));
  double d = Distance(mine, DocumentEmbedding(document, *doc, *b));
  r.score = std::round(FaceMatchScore(d) * 10000.0) / 10000.0;
  r.embedding.assign(mine.begin(), mine.end());
  return r;
}

v::BiometricScore DlibEngine::AttackSignals(const v::Capture* selfie, const v::Capture* video, const v::EngineContext&) {
  v::BiometricScore r;
  r.model_name = kPadModelName;
  std::vector<PadSignal> signals;
  bool measured = false;
  if (selfie != nullptr) {
    auto seen = Look(*selfie);
    if (const Face* f = seen != nullptr ? Largest(seen->faces) : nullptr; f != nullptr) {
      auto still = StillSignals(seen->image, *f);
      signals.insert(signals.end(), still.begin(), still.end());
      measured = true;
    }
  }
  if (video != nullptr) {
    auto seen = LookVideo(*video);
    if (seen->readable) {
      // The still signals are not read on the video's frames: its codec's block grid fills the
      // spectrum a recapture's pattern is looked for in (measured: docs/biometrics.md).
      signals.push_back(FrameRepeatSignal(seen->repeats, seen->comparable));
      measured = true;
    }
  }
  if (!measured) {
    r.status = "error";
    r.error_code = "NO_FACE_FOR_ATTACK_SIGNALS";
    return r;
  }
  PadResult pad = Combine(std::move(signals));
  r.score = std::round(pad.score * 10000.0) / 10000.0;
  r.reasons = pad.reasons;
  r.details = pad.ToJson();
  return r;
}

v::BiometricScore DlibEngine::MatchReference(const v::Capture& face, const std::vector<float>& reference,
                                             const std::string& reference_model, const v::EngineContext&) {
  v::BiometricScore r;
  r.model_name = FaceModels::kRecognitionModelName;
  Embedding ref{};
  if (reference_model != FaceModels::kRecognitionModelName || reference.size() != ref.size()) {
    r.status = "unavailable";
    r.error_code = "REFERENCE_MODEL_MISMATCH";  // made by another model: not comparable
    return r;
  }
  std::copy(reference.begin(), reference.end(), ref.begin());
  auto seen = Look(face);
  if (seen == nullptr) {
    r.status = "error";
    r.error_code = "SELFIE_UNREADABLE";
    return r;
  }
  const Face* a = Largest(seen->faces);
  if (a == nullptr) {
    r.status = "error";
    r.error_code = "NO_FACE_IN_SELFIE";
    return r;
  }
  Embedding mine = models_->Embed(models_->Chip(seen->image, *a));
  r.score = std::round(FaceMatchScore(Distance(mine, ref)) * 10000.0) / 10000.0;
  return r;
}

}  // namespace svc::pipeline::biometrics
