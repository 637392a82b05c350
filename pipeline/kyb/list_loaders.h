#pragma once
// Readers of sanctions and PEP lists in their published formats (docs/screening.md#lists). Each
// turns one file's bytes into entries the matcher screens against, and names the content by its
// SHA-256, so a hit can always say which version of which list it came from. Nothing is fetched:
// the operator loads the files (`svc aml load`). A file that does not follow its format is
// refused as a whole, with the line (or element) at fault; nothing of it is loaded.
//
//   ofac_sdn_csv        OFAC's SDN.CSV (no header; ent_num, SDN_Name, SDN_Type, Program, Title,
//                       Call_Sign, Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks; "-0-"
//                       is empty), with ALT.CSV's aliases when given (ent_num, alt_num, alt_type,
//                       alt_name, alt_remarks). Birth dates, nationalities, RFC and CURP are read
//                       from the remarks ("DOB 01 Jan 1960; nationality Mexico; R.F.C. …").
//   un_consolidated_xml the UN Security Council Consolidated List (CONSOLIDATED_LIST, INDIVIDUALS/
//                       INDIVIDUAL and ENTITIES/ENTITY with DATAID, REFERENCE_NUMBER, FIRST_NAME to
//                       FOURTH_NAME, *_ALIAS/ALIAS_NAME, INDIVIDUAL_DATE_OF_BIRTH, NATIONALITY/VALUE).
//   opensanctions_csv   OpenSanctions' targets.simple.csv (header id, schema, name, aliases,
//                       birth_date, countries, addresses, identifiers, sanctions, phones, emails,
//                       dataset, first_seen, last_seen, last_change; lists joined with ";").
//   ftm_json            FollowTheMoney entities, one JSON object a line (id, schema, target,
//                       properties: name, alias, birthDate, nationality, country, idNumber,
//                       taxNumber, …), as OpenSanctions' entities.ftm.json: only targets of the
//                       screenable schemas (Person, Company, Organization, LegalEntity, PublicBody,
//                       Vessel, Airplane) are entries; Identification and Passport numbers join
//                       their holder, Sanction programmes their entity; the rest is counted in
//                       `skipped`.
//   sat_69b_csv         the SAT's Listado_Completo_69-B.csv (CFF art. 69-B, operations deemed
//                       simulated): title lines, then No, RFC, Nombre del Contribuyente, Situación
//                       del contribuyente, the notices and publications; Windows-1252 (or UTF-8).
//                       Presunto and Definitivo are entries (programme "CFF 69-B: <situación>");
//                       Desvirtuado and Sentencia Favorable are counted in `skipped` ("cleared:…").
//   sat_69_csv          the SAT's art. 69 lists of non-compliant taxpayers (Firmes, Exigibles, No
//                       localizados, Cancelados, Sentencias, …), one or more files: RFC, Razón
//                       social, Tipo persona, Supuesto, …; programme "CFF 69: <SUPUESTO>".
//   The SAT's entries are identified by their RFC (entry id and identifier), persona moral
//   (12 characters) a company, persona física (13) a person.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace svc::pipeline::kyb {

struct ListEntry {
  std::string entry_id;  // the list's own id (ent_num, REFERENCE_NUMBER, the entity id)
  std::string kind;      // person | company | other (vessels, aircraft)
  std::string name;
  std::vector<std::string> aliases;
  std::vector<std::string> birth_dates;    // YYYY-MM-DD or YYYY
  std::vector<std::string> nationalities;  // as the list gives them (country names or codes)
  std::vector<std::string> id_numbers;     // RFC, CURP and other identifiers, as written
  std::vector<std::string> programs;       // sanctions programmes or datasets
};

struct LoadedList {
  std::string format;        // one of the four above
  // The version of the content: one file, the SHA-256 hex of its bytes; two (SDN.CSV and
  // ALT.CSV), the SHA-256 hex of their two SHA-256s in order.
  std::string content_hash;
  std::vector<ListEntry> entries;
  // What the file held that is not an entry, counted: "schema:<S>" (an FTM schema that is not
  // screened: Family, Occupancy, Position, Address, Sanction, …), "not_target:<S>" (an FTM entity
  // that is no target: a relative, an associate), "unnamed:<S>" (a target without a name).
  std::map<std::string, int64_t> skipped;
};

// The programmes of the SAT's entries (sat_69b_csv, sat_69_csv), which the risk reads.
inline constexpr std::string_view kSat69BDefinitivo = "CFF 69-B: Definitivo";
inline constexpr std::string_view kSat69BPresunto = "CFF 69-B: Presunto";
inline constexpr std::string_view kSat69Prefix = "CFF 69: ";
// What an entry's programmes say of the SAT's lists: "69b_definitivo", "69b_presunto",
// "69" (a supuesto of art. 69), or "" (no SAT list); the most severe first.
std::string SatListing(const std::vector<std::string>& programs);

// The formats a loader reads.
const std::vector<std::string>& ListFormats();

// Reads `files` in `format` (ofac_sdn_csv: SDN.CSV, then optionally ALT.CSV; the others: one
// file). InvalidArgument with the place at fault when a file does not follow the format.
core::Result<LoadedList> LoadList(std::string_view format, const std::vector<std::string>& files);

// RFC 4180 CSV: the rows of `text` (quoted fields may hold commas, doubled quotes and line
// breaks). InvalidArgument on an unclosed quote or text after a closing one.
core::Result<std::vector<std::vector<std::string>>> ParseCsv(std::string_view text);

}  // namespace svc::pipeline::kyb
