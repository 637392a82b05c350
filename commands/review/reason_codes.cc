#include "commands/review/reason_codes.h"

namespace svc::commands::review {

const std::vector<ReasonCode>& ReasonCatalogue() {
  static const std::vector<ReasonCode> kCodes = {
      {"REVIEW_APPROVED", "approve", "Aprobado tras revisión", "Approved on review"},
      {"MANUAL_DOCUMENT_CHECK", "approve", "Documento verificado a mano", "Document checked by hand"},
      {"MANUAL_FACE_MATCH", "approve", "Rostros comparados: misma persona", "Faces compared: same person"},
      {"REGISTRY_CONFIRMED", "approve", "Datos confirmados con RENAPO/INE", "Data confirmed with RENAPO/INE"},
      {"APPLICANT_CONTACTED", "approve", "Se contactó al solicitante y confirmó", "Applicant contacted and confirmed"},
      {"SOURCE_OUTAGE_CLEARED", "approve", "La fuente no disponible ya respondió", "The unavailable source answered since"},
      {"REVIEW_DECLINED", "decline", "Rechazado tras revisión", "Declined on review"},
      {"FACE_MISMATCH", "decline", "El rostro no corresponde al documento", "The face does not match the document"},
      {"DOCUMENT_TAMPERED", "decline", "Documento alterado", "Document altered"},
      {"DOCUMENT_INVALID", "decline", "Documento vencido o no válido", "Document expired or not valid"},
      {"DATA_MISMATCH", "decline", "Los datos no coinciden con el registro", "The data disagree with the registry"},
      {"PRESENTATION_ATTACK", "decline", "Ataque de presentación (foto, pantalla, máscara, video)",
       "Presentation attack (photo, screen, mask, video)"},
      {"SUSPECTED_FRAUD", "decline", "Indicios de fraude", "Signs of fraud"},
      {"REVIEW_MORE_INFO", "request_more_info", "Se pide más información", "More information requested"},
      {"DOCUMENT_UNREADABLE", "request_more_info", "Documento ilegible: otra foto", "Document unreadable: another photo"},
      {"SELFIE_UNUSABLE", "request_more_info", "Selfie inutilizable: otra toma", "Selfie unusable: another take"},
      {"DOCUMENT_SIDE_MISSING", "request_more_info", "Falta un lado del documento", "A side of the document is missing"},
      // The captures to take again, one by one (commands/verification/session_status.h, RequestedCaptures).
      {"DOCUMENT_FRONT_REQUIRED", "request_more_info", "Repetir: frente del documento", "Retake: the document's front",
       "document_front"},
      {"DOCUMENT_BACK_REQUIRED", "request_more_info", "Repetir: reverso del documento", "Retake: the document's back",
       "document_back"},
      {"SELFIE_REQUIRED", "request_more_info", "Repetir: selfie", "Retake: the selfie", "selfie"},
      {"LIVENESS_VIDEO_REQUIRED", "request_more_info", "Repetir: prueba de vida", "Retake: the liveness check",
       "liveness_video"},
      {"REVIEW_ESCALATED", "escalate", "Escalado", "Escalated"},
      {"NEEDS_SUPERVISOR", "escalate", "Requiere a un supervisor", "Needs a supervisor"},
      {"SUSPECTED_FRAUD", "escalate", "Indicios de fraude", "Signs of fraud"},
  };
  return kCodes;
}

const ReasonCode* FindReason(std::string_view action, std::string_view code) {
  for (const auto& r : ReasonCatalogue()) {
    if (r.action == action && r.code == code) return &r;
  }
  return nullptr;
}

std::string_view DefaultReason(std::string_view action) {
  if (action == "approve") return "REVIEW_APPROVED";
  if (action == "decline") return "REVIEW_DECLINED";
  if (action == "request_more_info") return "REVIEW_MORE_INFO";
  if (action == "escalate") return "REVIEW_ESCALATED";
  return {};
}

std::string_view EngineLean(std::string_view priority) {
  if (priority == "high" || priority == "critical") return "against";
  if (priority == "low") return "for";
  return "neutral";
}

bool IsOverride(std::string_view lean, std::string_view action) {
  return (lean == "against" && action == "approve") || (lean == "for" && action == "decline");
}

}  // namespace svc::commands::review
