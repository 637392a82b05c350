# Writes OUT, a C++ source holding static web files (NAMES, ";"-separated, from DIR) as string
# constants <PREFIX>_<name as a C identifier> in namespace NS, so that svc serves them without a
# file on disk: the review console (api/review/console/) and the embedded widget
# (api/embedded/widget/).
set(content "// Generated from ${DIR} by api/http/embed_assets.cmake. Do not edit.\n#include <string_view>\nnamespace ${NS} {\n")
foreach(name ${NAMES})
  file(READ "${DIR}/${name}" text)
  string(FIND "${text}" ")svcasset\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${name} contains the raw-string delimiter )svcasset\"")
  endif()
  string(MAKE_C_IDENTIFIER "${name}" id)
  string(APPEND content "extern const std::string_view ${PREFIX}_${id};\nconst std::string_view ${PREFIX}_${id} = R\"svcasset(${text})svcasset\";\n")
endforeach()
string(APPEND content "}  // namespace ${NS}\n")
file(WRITE "${OUT}" "${content}")
