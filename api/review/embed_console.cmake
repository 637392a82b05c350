# Writes OUT, a C++ source holding the review console's files (DIR) as string constants, so that
# svc serves them without a file on disk (api/review/console.cc).
set(content "// Generated from api/review/console/ by api/review/embed_console.cmake. Do not edit.\n#include <string_view>\nnamespace svc::api::review {\n")
foreach(name index.html app.js app.css icon.svg)
  file(READ "${DIR}/${name}" text)
  string(FIND "${text}" ")svcasset\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${name} contains the raw-string delimiter )svcasset\"")
  endif()
  string(MAKE_C_IDENTIFIER "${name}" id)
  string(APPEND content "extern const std::string_view kConsole_${id};\nconst std::string_view kConsole_${id} = R\"svcasset(${text})svcasset\";\n")
endforeach()
string(APPEND content "}  // namespace svc::api::review\n")
file(WRITE "${OUT}" "${content}")
