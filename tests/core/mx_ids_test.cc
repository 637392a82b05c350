// Mexican identifiers (core/mx_ids.h), table-driven: 281 cases written from RENAPO's Instructivo
// Normativo for the CURP (structure, centuries, states, sex, Anexo 2's inconvenient words, check
// digit) and the SAT's RFC algorithm (Ñ and & as letters, Anexo IV's inconvenient words, the
// generic RFCs, check digit), each with what a person may type (case, blanks, hyphens). Published
// CURPs (INEA's lists, RENAPO's examples) and the SAT's own RFC pass; widely copied examples with
// a wrong check digit fail. Today is 2026-11-26.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "core/mx_calendar.h"
#include "core/mx_ids.h"

namespace core_mx_ids_test {

using namespace svc::core::mx;

namespace {

const CivilDate kToday{2026, 11, 26};

struct Case {
  const char* kind;      // curp | rfc
  const char* raw;       // as typed
  const char* expected;  // "ok", or the reason the check must give
  const char* rule;
};

const Case kCases[] = {
    {"curp", "AAMR780430MGRBRN00", "ok", "published (INEA, RENAPO)"},
    {"curp", "AAOD850103HGRBCN02", "ok", "published (INEA, RENAPO)"},
    {"curp", "AAOA770305MDFBRN00", "ok", "published (INEA, RENAPO)"},
    {"curp", "AAPE921018MMSBRV01", "ok", "published (INEA, RENAPO)"},
    {"curp", "AAPL900311MGRBRZ00", "ok", "published (INEA, RENAPO)"},
    {"curp", "AASA660209MMSBNN01", "ok", "published (INEA, RENAPO)"},
    {"curp", "AUHC350422HPLBRL08", "ok", "published (INEA, RENAPO)"},
    {"curp", "AUHM741203MMSBRR05", "ok", "published (INEA, RENAPO)"},
    {"curp", "AAOJ801108MMSCRL09", "ok", "published (INEA, RENAPO)"},
    {"curp", "AARJ990531HMSCMN09", "ok", "published (INEA, RENAPO)"},
    {"curp", "AECR350123MPLCNY04", "ok", "published (INEA, RENAPO)"},
    {"curp", "AEHP481216HMSCRD07", "ok", "published (INEA, RENAPO)"},
    {"curp", "HEGG560427MVZRRL04", "ok", "published (INEA, RENAPO)"},
    {"curp", "MAAR790213HMNRLF03", "ok", "published (INEA, RENAPO)"},
    {"curp", "PEGJ850101HASRRN05", "ok", "state AS"},
    {"curp", "PEGJ850101HBCRRN00", "ok", "state BC"},
    {"curp", "PEGJ850101HBSRRN08", "ok", "state BS"},
    {"curp", "PEGJ850101HCCRRN03", "ok", "state CC"},
    {"curp", "PEGJ850101HCLRRN09", "ok", "state CL"},
    {"curp", "PEGJ850101HCMRRN03", "ok", "state CM"},
    {"curp", "PEGJ850101HCSRRN01", "ok", "state CS"},
    {"curp", "PEGJ850101HCHRRN03", "ok", "state CH"},
    {"curp", "PEGJ850101HDFRRN08", "ok", "state DF"},
    {"curp", "PEGJ850101HDGRRN02", "ok", "state DG"},
    {"curp", "PEGJ850101HGTRRN07", "ok", "state GT"},
    {"curp", "PEGJ850101HGRRRN09", "ok", "state GR"},
    {"curp", "PEGJ850101HHGRRN04", "ok", "state HG"},
    {"curp", "PEGJ850101HJCRRN04", "ok", "state JC"},
    {"curp", "PEGJ850101HMCRRN03", "ok", "state MC"},
    {"curp", "PEGJ850101HMNRRN07", "ok", "state MN"},
    {"curp", "PEGJ850101HMSRRN01", "ok", "state MS"},
    {"curp", "PEGJ850101HNTRRN08", "ok", "state NT"},
    {"curp", "PEGJ850101HNLRRN02", "ok", "state NL"},
    {"curp", "PEGJ850101HOCRRN02", "ok", "state OC"},
    {"curp", "PEGJ850101HPLRRN01", "ok", "state PL"},
    {"curp", "PEGJ850101HQTRRN00", "ok", "state QT"},
    {"curp", "PEGJ850101HQRRRN02", "ok", "state QR"},
    {"curp", "PEGJ850101HSPRRN00", "ok", "state SP"},
    {"curp", "PEGJ850101HSLRRN00", "ok", "state SL"},
    {"curp", "PEGJ850101HSRRRN08", "ok", "state SR"},
    {"curp", "PEGJ850101HTCRRN07", "ok", "state TC"},
    {"curp", "PEGJ850101HTSRRN05", "ok", "state TS"},
    {"curp", "PEGJ850101HTLRRN03", "ok", "state TL"},
    {"curp", "PEGJ850101HVZRRN09", "ok", "state VZ"},
    {"curp", "PEGJ850101HYNRRN06", "ok", "state YN"},
    {"curp", "PEGJ850101HZSRRN03", "ok", "state ZS"},
    {"curp", "PEGJ850101HNERRN04", "ok", "state NE"},
    {"curp", "PEGJ850101HDFRRN08", "ok", "sex H"},
    {"curp", "PEGJ850101MDFRRN08", "ok", "sex M"},
    {"curp", "PEGJ850101XDFRRN02", "ok", "sex X"},
    {"curp", "PEGJ850101FDFRRN04", "curp_sex", "sex F is not a CURP letter"},
    {"curp", "PEGJ850101HXXRRN07", "curp_state", "state XX"},
    {"curp", "PEGJ850101HZZRRN01", "curp_state", "state ZZ"},
    {"curp", "PEGJ850101HEXRRN07", "curp_state", "state EX"},
    {"curp", "PEGJ850101HUSRRN08", "curp_state", "state US"},
    {"curp", "PEGJ850101HMXRRN01", "curp_state", "state MX"},
    {"curp", "GOMA050505HDFMRNA2", "ok", "born 2005: letter differentiator"},
    {"curp", "GOMA991231HDFMRN93", "ok", "born 1999: digit differentiator"},
    {"curp", "GOMA000229HDFMRNA4", "ok", "2000-02-29: 2000 is a leap year"},
    {"curp", "GOMA000229HDFMRN04", "curp_date", "1900-02-29: 1900 is not a leap year"},
    {"curp", "GOMA040229HDFMRNA2", "ok", "2004-02-29"},
    {"curp", "GOMA010229HDFMRN01", "curp_date", "1901-02-29"},
    {"curp", "GOMA851301HDFMRN06", "curp_date", "month 13"},
    {"curp", "GOMA850001HDFMRN01", "curp_date", "month 00"},
    {"curp", "GOMA850100HDFMRN09", "curp_date", "day 00"},
    {"curp", "GOMA850132HDFMRN01", "curp_date", "day 32"},
    {"curp", "GOMA850431HDFMRN07", "curp_date", "31 April"},
    {"curp", "GOMA850631HDFMRN05", "curp_date", "31 June"},
    {"curp", "GOMA261126HDFMRNA4", "ok", "born today"},
    {"curp", "GOMA261127HDFMRNA5", "curp_future_date", "born tomorrow"},
    {"curp", "GOMA261201HDFMRNA8", "curp_future_date", "born next month"},
    {"curp", "GOMA300101HDFMRNB3", "curp_future_date", "born 2030"},
    {"curp", "GOMA991231HDFMRNZ9", "curp_future_date", "2099 (letter differentiator)"},
    {"curp", "GOMA261127HDFMRN13", "ok", "1926-11-27 (digit differentiator)"},
    {"curp", "BACA850101HDFRRN05", "curp_inconvenient_word", "RENAPO replaces BACA"},
    {"curp", "BAKA850101HDFRRN07", "curp_inconvenient_word", "RENAPO replaces BAKA"},
    {"curp", "BUEI850101HDFRRN06", "curp_inconvenient_word", "RENAPO replaces BUEI"},
    {"curp", "BUEY850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces BUEY"},
    {"curp", "CACA850101HDFRRN07", "curp_inconvenient_word", "RENAPO replaces CACA"},
    {"curp", "CACO850101HDFRRN02", "curp_inconvenient_word", "RENAPO replaces CACO"},
    {"curp", "CAGA850101HDFRRN03", "curp_inconvenient_word", "RENAPO replaces CAGA"},
    {"curp", "CAGO850101HDFRRN08", "curp_inconvenient_word", "RENAPO replaces CAGO"},
    {"curp", "CAKA850101HDFRRN09", "curp_inconvenient_word", "RENAPO replaces CAKA"},
    {"curp", "CAKO850101HDFRRN04", "curp_inconvenient_word", "RENAPO replaces CAKO"},
    {"curp", "COGE850101HDFRRN08", "curp_inconvenient_word", "RENAPO replaces COGE"},
    {"curp", "COGI850101HDFRRN08", "curp_inconvenient_word", "RENAPO replaces COGI"},
    {"curp", "COJA850101HDFRRN00", "curp_inconvenient_word", "RENAPO replaces COJA"},
    {"curp", "COJE850101HDFRRN00", "curp_inconvenient_word", "RENAPO replaces COJE"},
    {"curp", "COJI850101HDFRRN00", "curp_inconvenient_word", "RENAPO replaces COJI"},
    {"curp", "COJO850101HDFRRN05", "curp_inconvenient_word", "RENAPO replaces COJO"},
    {"curp", "COLA850101HDFRRN08", "curp_inconvenient_word", "RENAPO replaces COLA"},
    {"curp", "CULO850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces CULO"},
    {"curp", "FALO850101HDFRRN04", "curp_inconvenient_word", "RENAPO replaces FALO"},
    {"curp", "FETO850101HDFRRN02", "curp_inconvenient_word", "RENAPO replaces FETO"},
    {"curp", "GETA850101HDFRRN09", "curp_inconvenient_word", "RENAPO replaces GETA"},
    {"curp", "GUEI850101HDFRRN06", "curp_inconvenient_word", "RENAPO replaces GUEI"},
    {"curp", "GUEY850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces GUEY"},
    {"curp", "JETA850101HDFRRN05", "curp_inconvenient_word", "RENAPO replaces JETA"},
    {"curp", "JOTO850101HDFRRN03", "curp_inconvenient_word", "RENAPO replaces JOTO"},
    {"curp", "KACA850101HDFRRN03", "curp_inconvenient_word", "RENAPO replaces KACA"},
    {"curp", "KACO850101HDFRRN08", "curp_inconvenient_word", "RENAPO replaces KACO"},
    {"curp", "KAGA850101HDFRRN09", "curp_inconvenient_word", "RENAPO replaces KAGA"},
    {"curp", "KAGO850101HDFRRN04", "curp_inconvenient_word", "RENAPO replaces KAGO"},
    {"curp", "KAKA850101HDFRRN05", "curp_inconvenient_word", "RENAPO replaces KAKA"},
    {"curp", "KAKO850101HDFRRN00", "curp_inconvenient_word", "RENAPO replaces KAKO"},
    {"curp", "KOGE850101HDFRRN04", "curp_inconvenient_word", "RENAPO replaces KOGE"},
    {"curp", "KOGI850101HDFRRN04", "curp_inconvenient_word", "RENAPO replaces KOGI"},
    {"curp", "KOJA850101HDFRRN06", "curp_inconvenient_word", "RENAPO replaces KOJA"},
    {"curp", "KOJE850101HDFRRN06", "curp_inconvenient_word", "RENAPO replaces KOJE"},
    {"curp", "KOJI850101HDFRRN06", "curp_inconvenient_word", "RENAPO replaces KOJI"},
    {"curp", "KOJO850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces KOJO"},
    {"curp", "KOLA850101HDFRRN04", "curp_inconvenient_word", "RENAPO replaces KOLA"},
    {"curp", "KULO850101HDFRRN07", "curp_inconvenient_word", "RENAPO replaces KULO"},
    {"curp", "LILO850101HDFRRN00", "curp_inconvenient_word", "RENAPO replaces LILO"},
    {"curp", "LOCA850101HDFRRN00", "curp_inconvenient_word", "RENAPO replaces LOCA"},
    {"curp", "LOCO850101HDFRRN05", "curp_inconvenient_word", "RENAPO replaces LOCO"},
    {"curp", "LOKA850101HDFRRN02", "curp_inconvenient_word", "RENAPO replaces LOKA"},
    {"curp", "LOKO850101HDFRRN07", "curp_inconvenient_word", "RENAPO replaces LOKO"},
    {"curp", "MAME850101HDFRRN07", "curp_inconvenient_word", "RENAPO replaces MAME"},
    {"curp", "MAMO850101HDFRRN02", "curp_inconvenient_word", "RENAPO replaces MAMO"},
    {"curp", "MEAR850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces MEAR"},
    {"curp", "MEAS850101HDFRRN06", "curp_inconvenient_word", "RENAPO replaces MEAS"},
    {"curp", "MEON850101HDFRRN06", "curp_inconvenient_word", "RENAPO replaces MEON"},
    {"curp", "MIAR850101HDFRRN03", "curp_inconvenient_word", "RENAPO replaces MIAR"},
    {"curp", "MION850101HDFRRN08", "curp_inconvenient_word", "RENAPO replaces MION"},
    {"curp", "MOCO850101HDFRRN07", "curp_inconvenient_word", "RENAPO replaces MOCO"},
    {"curp", "MOKO850101HDFRRN09", "curp_inconvenient_word", "RENAPO replaces MOKO"},
    {"curp", "MULA850101HDFRRN06", "curp_inconvenient_word", "RENAPO replaces MULA"},
    {"curp", "MULO850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces MULO"},
    {"curp", "NACA850101HDFRRN09", "curp_inconvenient_word", "RENAPO replaces NACA"},
    {"curp", "NACO850101HDFRRN04", "curp_inconvenient_word", "RENAPO replaces NACO"},
    {"curp", "PEDA850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces PEDA"},
    {"curp", "PEDO850101HDFRRN06", "curp_inconvenient_word", "RENAPO replaces PEDO"},
    {"curp", "PENE850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces PENE"},
    {"curp", "PIPI850101HDFRRN05", "curp_inconvenient_word", "RENAPO replaces PIPI"},
    {"curp", "PITO850101HDFRRN06", "curp_inconvenient_word", "RENAPO replaces PITO"},
    {"curp", "POPO850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces POPO"},
    {"curp", "PUTA850101HDFRRN00", "curp_inconvenient_word", "RENAPO replaces PUTA"},
    {"curp", "PUTO850101HDFRRN05", "curp_inconvenient_word", "RENAPO replaces PUTO"},
    {"curp", "QULO850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces QULO"},
    {"curp", "RATA850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces RATA"},
    {"curp", "ROBA850101HDFRRN00", "curp_inconvenient_word", "RENAPO replaces ROBA"},
    {"curp", "ROBE850101HDFRRN00", "curp_inconvenient_word", "RENAPO replaces ROBE"},
    {"curp", "ROBO850101HDFRRN05", "curp_inconvenient_word", "RENAPO replaces ROBO"},
    {"curp", "RUIN850101HDFRRN01", "curp_inconvenient_word", "RENAPO replaces RUIN"},
    {"curp", "SENO850101HDFRRN02", "curp_inconvenient_word", "RENAPO replaces SENO"},
    {"curp", "TETA850101HDFRRN07", "curp_inconvenient_word", "RENAPO replaces TETA"},
    {"curp", "VACA850101HDFRRN07", "curp_inconvenient_word", "RENAPO replaces VACA"},
    {"curp", "VAGA850101HDFRRN03", "curp_inconvenient_word", "RENAPO replaces VAGA"},
    {"curp", "VAGO850101HDFRRN08", "curp_inconvenient_word", "RENAPO replaces VAGO"},
    {"curp", "VAKA850101HDFRRN09", "curp_inconvenient_word", "RENAPO replaces VAKA"},
    {"curp", "VUEI850101HDFRRN08", "curp_inconvenient_word", "RENAPO replaces VUEI"},
    {"curp", "VUEY850101HDFRRN03", "curp_inconvenient_word", "RENAPO replaces VUEY"},
    {"curp", "WUEI850101HDFRRN00", "curp_inconvenient_word", "RENAPO replaces WUEI"},
    {"curp", "WUEY850101HDFRRN05", "curp_inconvenient_word", "RENAPO replaces WUEY"},
    {"curp", "BXEY850101HDFRRN00", "ok", "BUEY as issued: BXEY"},
    {"curp", "CXCA850101HDFRRN09", "ok", "CACA as issued: CXCA"},
    {"curp", "MXLA850101HDFRRN05", "ok", "MULA as issued: MXLA"},
    {"curp", "PXDO850101HDFRRN06", "ok", "PEDO as issued: PXDO"},
    {"curp", "LXCA850101HDFRRN07", "ok", "LOCA as issued: LXCA"},
    {"curp", "VXCA850101HDFRRN09", "ok", "VACA as issued: VXCA"},
    {"curp", "RXTA850101HDFRRN03", "ok", "RATA as issued: RXTA"},
    {"curp", "TXTA850101HDFRRN07", "ok", "TETA as issued: TXTA"},
    {"curp", "PEGJ850101HDFRRN0", "curp_length", "17 characters"},
    {"curp", "PEGJ850101HDFRRN080", "curp_length", "19 characters"},
    {"curp", "", "curp_length", "empty"},
    {"curp", "PEGJ850101HDFRRN09", "curp_check_digit", "check digit off by one"},
    {"curp", "BADD110313HCMLNS09", "curp_check_digit", "a widely copied example whose check digit is wrong"},
    {"curp", "P3GJ850101HDFRRN00", "curp_format", "digit among the letters"},
    {"curp", "PBGJ850101HDFRRN09", "curp_format", "second letter neither vowel nor X"},
    {"curp", "PXGJ850101HDFRRN08", "ok", "no inner vowel: X"},
    {"curp", "PEGJ850101HDFRAN00", "curp_format", "vowel among the inner consonants"},
    {"curp", "PEGJ850101HDFXXX01", "ok", "no inner consonants: X"},
    {"curp", "PEGJ8501O1HDFRRN00", "curp_format", "letter O where a digit goes"},
    {"curp", "PEGJ850101HDFRRN0A", "curp_format", "letter as check digit"},
    {"curp", "PEÑJ850101HDFRRN00", "curp_format", "Ñ: RENAPO writes X"},
    {"curp", "PEG 850101HDFRRN00", "curp_length", "a blank inside is removed, leaving 17"},
    {"curp", "pegj850101hdfrrn08", "ok", "lower case is normalised"},
    {"curp", "  PEGJ850101HDFRRN08 ", "ok", "surrounding blanks"},
    {"curp", "PEGJ-850101-HDFRRN08", "ok", "hyphens between groups"},
    {"curp", "PEGJ 850101 HDFRRN08", "ok", "spaces between groups"},
    {"curp", "PEGJ.850101HDFRRN08", "ok", "a dot between groups"},
    {"curp", "PEGJ/850101HDFRRN08", "curp_length", "a slash is kept, and refused"},
    {"rfc", "GODE561231GR8", "ok", "persona física, published"},
    {"rfc", "SAT970701NN3", "ok", "persona moral: the SAT's own RFC"},
    {"rfc", "CUPU800825569", "rfc_check_digit", "a widely copied example whose check digit is wrong"},
    {"rfc", "XAXX010101000", "rfc_generic", "generic RFC, público en general"},
    {"rfc", "XEXX010101000", "rfc_generic", "generic RFC, residentes en el extranjero"},
    {"rfc", "xaxx-010101-000", "rfc_generic", "the generic RFC written with hyphens"},
    {"rfc", "MUÑO800101AB3", "ok", "Ñ and & are RFC letters (MUÑO)"},
    {"rfc", "ÑUÑE750512K76", "ok", "Ñ and & are RFC letters (ÑUÑE)"},
    {"rfc", "PEÑA690101H18", "ok", "Ñ and & are RFC letters (PEÑA)"},
    {"rfc", "AÑO010203AB0", "ok", "Ñ and & are RFC letters (AÑO0)"},
    {"rfc", "ÑAN990101Z97", "ok", "Ñ and & are RFC letters (ÑAN9)"},
    {"rfc", "A&B010203XY9", "ok", "Ñ and & are RFC letters (A&B0)"},
    {"rfc", "&&&000101AA9", "ok", "Ñ and & are RFC letters (&&&0)"},
    {"rfc", "GA&O800101AB3", "ok", "Ñ and & are RFC letters (GA&O)"},
    {"rfc", "SAÑ851212PQ0", "ok", "Ñ and & are RFC letters (SAÑ8)"},
    {"rfc", "muño800101ab3", "ok", "ñ in lower case is normalised to Ñ"},
    {"rfc", "MUÑO-800101-AB3", "ok", "Ñ with hyphens"},
    {"rfc", "MUÑO800101AB1", "rfc_check_digit", "Ñ with a wrong check digit"},
    {"rfc", "MUNO800101AB3", "ok", "N is not Ñ"},
    {"rfc", "BUEI850101AB0", "rfc_inconvenient_word", "the SAT replaces BUEI"},
    {"rfc", "BUEY850101AB6", "rfc_inconvenient_word", "the SAT replaces BUEY"},
    {"rfc", "CACA850101AB0", "rfc_inconvenient_word", "the SAT replaces CACA"},
    {"rfc", "CACO850101AB4", "rfc_inconvenient_word", "the SAT replaces CACO"},
    {"rfc", "CAGA850101AB0", "rfc_inconvenient_word", "the SAT replaces CAGA"},
    {"rfc", "CAGO850101AB4", "rfc_inconvenient_word", "the SAT replaces CAGO"},
    {"rfc", "CAKA850101AB0", "rfc_inconvenient_word", "the SAT replaces CAKA"},
    {"rfc", "CAKO850101AB4", "rfc_inconvenient_word", "the SAT replaces CAKO"},
    {"rfc", "COGE850101AB0", "rfc_inconvenient_word", "the SAT replaces COGE"},
    {"rfc", "COJA850101AB7", "rfc_inconvenient_word", "the SAT replaces COJA"},
    {"rfc", "COJE850101AB0", "rfc_inconvenient_word", "the SAT replaces COJE"},
    {"rfc", "COJI850101AB4", "rfc_inconvenient_word", "the SAT replaces COJI"},
    {"rfc", "COJO850101AB0", "rfc_inconvenient_word", "the SAT replaces COJO"},
    {"rfc", "CULO850101AB5", "rfc_inconvenient_word", "the SAT replaces CULO"},
    {"rfc", "FETO850101AB5", "rfc_inconvenient_word", "the SAT replaces FETO"},
    {"rfc", "GUEY850101AB7", "rfc_inconvenient_word", "the SAT replaces GUEY"},
    {"rfc", "JOTO850101AB8", "rfc_inconvenient_word", "the SAT replaces JOTO"},
    {"rfc", "KACA850101AB6", "rfc_inconvenient_word", "the SAT replaces KACA"},
    {"rfc", "KACO850101ABA", "rfc_inconvenient_word", "the SAT replaces KACO"},
    {"rfc", "KAGA850101AB6", "rfc_inconvenient_word", "the SAT replaces KAGA"},
    {"rfc", "KAGO850101ABA", "rfc_inconvenient_word", "the SAT replaces KAGO"},
    {"rfc", "KAKA850101AB6", "rfc_inconvenient_word", "the SAT replaces KAKA"},
    {"rfc", "KOGE850101AB6", "rfc_inconvenient_word", "the SAT replaces KOGE"},
    {"rfc", "KOJO850101AB6", "rfc_inconvenient_word", "the SAT replaces KOJO"},
    {"rfc", "KULO850101AB0", "rfc_inconvenient_word", "the SAT replaces KULO"},
    {"rfc", "MAME850101AB6", "rfc_inconvenient_word", "the SAT replaces MAME"},
    {"rfc", "MAMO850101AB6", "rfc_inconvenient_word", "the SAT replaces MAMO"},
    {"rfc", "MEAR850101AB5", "rfc_inconvenient_word", "the SAT replaces MEAR"},
    {"rfc", "MEAS850101AB6", "rfc_inconvenient_word", "the SAT replaces MEAS"},
    {"rfc", "MEON850101AB0", "rfc_inconvenient_word", "the SAT replaces MEON"},
    {"rfc", "MION850101AB7", "rfc_inconvenient_word", "the SAT replaces MION"},
    {"rfc", "MOCO850101AB2", "rfc_inconvenient_word", "the SAT replaces MOCO"},
    {"rfc", "MULA850101AB3", "rfc_inconvenient_word", "the SAT replaces MULA"},
    {"rfc", "PEDA850101AB1", "rfc_inconvenient_word", "the SAT replaces PEDA"},
    {"rfc", "PEDO850101AB5", "rfc_inconvenient_word", "the SAT replaces PEDO"},
    {"rfc", "PENE850101AB5", "rfc_inconvenient_word", "the SAT replaces PENE"},
    {"rfc", "PUTA850101AB6", "rfc_inconvenient_word", "the SAT replaces PUTA"},
    {"rfc", "PUTO850101ABA", "rfc_inconvenient_word", "the SAT replaces PUTO"},
    {"rfc", "QULO850101AB8", "rfc_inconvenient_word", "the SAT replaces QULO"},
    {"rfc", "RATA850101AB1", "rfc_inconvenient_word", "the SAT replaces RATA"},
    {"rfc", "RUIN850101AB4", "rfc_inconvenient_word", "the SAT replaces RUIN"},
    {"rfc", "BUEX850101AB5", "ok", "BUEY as issued: BUEX"},
    {"rfc", "COJX850101AB9", "ok", "COJO as issued: COJX"},
    {"rfc", "PEDX850101AB3", "ok", "PEDO as issued: PEDX"},
    {"rfc", "MULX850101AB5", "ok", "MULA as issued: MULX"},
    {"rfc", "RATX850101AB3", "ok", "RATA as issued: RATX"},
    {"rfc", "CACX850101AB2", "ok", "CACA as issued: CACX"},
    {"rfc", "BAC850101AB6", "ok", "persona moral BAC: the words are of four letters"},
    {"rfc", "BUE850101AB8", "ok", "persona moral BUE: the words are of four letters"},
    {"rfc", "CAC850101AB5", "ok", "persona moral CAC: the words are of four letters"},
    {"rfc", "PUT850101AB9", "ok", "persona moral PUT: the words are of four letters"},
    {"rfc", "LOCA850101AB0", "ok", "LOCA is on RENAPO's list, not the SAT's"},
    {"rfc", "GOMA000229AB8", "ok", "2000-02-29"},
    {"rfc", "GOMA010229AB0", "rfc_date", "29 February 2001"},
    {"rfc", "GOMA851301AB2", "rfc_date", "month 13"},
    {"rfc", "GOMA850100AB3", "rfc_date", "day 00"},
    {"rfc", "GOMA850431ABA", "rfc_date", "31 April"},
    {"rfc", "ABC851301ABA", "rfc_date", "persona moral, month 13"},
    {"rfc", "GOMA261231AB6", "ok", "yy 26 after today: read as 1926"},
    {"rfc", "GODE561231GR", "rfc_format", "12 characters of a física (the check digit missing) read as a moral: E is no digit"},
    {"rfc", "GODE561231", "rfc_length", "10 characters"},
    {"rfc", "GODE561231GR80", "rfc_length", "14 characters"},
    {"rfc", "GOD3561231GR8", "rfc_format", "digit among the letters"},
    {"rfc", "GODE56123AGR8", "rfc_format", "letter among the date digits"},
    {"rfc", "GODE561231G#8", "rfc_format", "# in the homoclave"},
    {"rfc", "GODÉ561231GR8", "rfc_format", "É is not an RFC letter"},
    {"rfc", "gode561231gr8", "ok", "lower case"},
    {"rfc", "GODE 561231 GR8", "ok", "spaces between groups"},
    {"rfc", "GODE-561231-GR8", "ok", "hyphens between groups"},
    {"rfc", "  GODE561231GR8\t", "ok", "surrounding blanks"},
    {"rfc", "GODE561231GR9", "rfc_check_digit", "check digit off by one"},
    {"rfc", "AAA010101AA1", "ok", "persona moral AAA"},
    {"rfc", "ZZZ991231ZZ6", "ok", "persona moral ZZZ"},
    {"rfc", "ABC000101A17", "ok", "persona moral ABC"},
    {"rfc", "XYZ200229B22", "ok", "persona moral XYZ"},
    {"rfc", "AAAA010101AA0", "ok", "persona física AAAA"},
    {"rfc", "ZZZZ991231ZZ8", "ok", "persona física ZZZZ"},
    {"rfc", "ABCD000101A16", "ok", "persona física ABCD"},
    {"rfc", "HEGT761003A5A", "ok", "check digit A (11 - remainder = 10)"},
};

bool Has(const std::vector<std::string>& v, std::string_view s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST_CASE("CURP and RFC: every case of the rules table") {
  int n = 0;
  for (const Case& c : kCases) {
    ++n;
    const std::string kind = c.kind, expected = c.expected;
    bool valid = false;
    std::vector<std::string> reasons;
    if (kind == "curp") {
      auto r = CheckCurp(NormaliseCurp(c.raw), kToday);
      valid = r.valid;
      reasons = r.reasons;
    } else {
      auto r = CheckRfc(NormaliseRfc(c.raw), kToday);
      valid = r.valid;
      reasons = r.reasons;
      if (expected == "rfc_generic") CHECK_MESSAGE(r.generic != GenericRfc::kNone, c.raw);
    }
    const std::string why = std::string(c.raw) + " — " + c.rule + " — got: " + Explain(reasons);
    if (expected == "ok") {
      CHECK_MESSAGE(valid, why);
    } else {
      CHECK_MESSAGE(!valid, why);
      CHECK_MESSAGE(Has(reasons, expected), why);
    }
  }
  CHECK(n >= 200);
}

TEST_CASE("CURP: what a valid one tells") {
  auto r = CheckCurp("HEGG560427MVZRRL04", kToday);
  REQUIRE(r.valid);
  CHECK(r.birth_date == CivilDate{1956, 4, 27});
  CHECK(r.sex == 'M');
  CHECK(r.state == "VZ");
  CHECK(CurpCheckDigit("HEGG560427MVZRRL0") == '4');
  auto young = CheckCurp(std::string("GOMA050505HDFMRNA") + CurpCheckDigit("GOMA050505HDFMRNA"), kToday);
  CHECK(young.valid);
  CHECK(young.birth_date == CivilDate{2005, 5, 5});
}

TEST_CASE("RFC: what a valid one tells; Ñ counts as one character") {
  auto f = CheckRfc("GODE561231GR8", kToday);
  CHECK(f.valid);
  CHECK_FALSE(f.persona_moral);
  CHECK(f.date == CivilDate{1956, 12, 31});
  auto m = CheckRfc("SAT970701NN3", kToday);
  CHECK(m.persona_moral);
  CHECK(m.date == CivilDate{1997, 7, 1});
  const std::string enye = NormaliseRfc("muño800101ab3");
  CHECK(enye == "MUÑO800101AB3");
  CHECK(enye.size() == 14);
  CHECK(IdentifierLength(enye) == 13);
  CHECK(CheckRfc(enye, kToday).valid);
  CHECK(CheckRfc("XAXX010101000", kToday).generic == GenericRfc::kGeneralPublic);
  CHECK(CheckRfc("XEXX010101000", kToday).generic == GenericRfc::kForeign);
  // The two-digit year is the latest century not after today.
  CHECK(CheckRfc(std::string("GOMA261231AB") + RfcCheckDigit("GOMA261231AB"), kToday).date.year == 1926);
  CHECK(CheckRfc(std::string("GOMA261125AB") + RfcCheckDigit("GOMA261125AB"), kToday).date.year == 2026);
}

TEST_CASE("Identifiers compact to one form for comparison") {
  CHECK(CompactIdentifier("muño-800101-ab3") == "MUÑO800101AB3");
  CHECK(CompactIdentifier("A&B 010203 XY1") == "A&B010203XY1");
  CHECK(CompactIdentifier("R.F.C. GODE-561231-GR8") == "RFCGODE561231GR8");
  CHECK(IsGenericRfc(CompactIdentifier("xaxx-010101-000")));
  CHECK(CivilDateOfMicros(0) == CivilDate{1970, 1, 1});
  CHECK(CivilDateOfMicros(1767225600LL * 1000000) == CivilDate{2026, 1, 1});
  CHECK(CivilDateOfMicros(-1) == CivilDate{1969, 12, 31});
}

// The business-day calendar of the ARCO deadlines (core/mx_calendar.h): LFT art. 74's rest days,
// weekends, an operator's extra days, and terms counted from the day after.
TEST_CASE("mx calendar: official rest days, weekends and business-day terms") {
  CHECK(Weekday({1970, 1, 1}) == 4);
  CHECK(Weekday({2026, 12, 1}) == 2);  // a Tuesday
  CHECK(Weekday({1969, 12, 28}) == 0);
  CHECK(DaysFromCivil({2026, 1, 1}) == 20454);
  CHECK(CivilFromDays(20454) == CivilDate{2026, 1, 1});
  // 2026: the Mondays that stand for 5 February, 21 March and 20 November.
  for (CivilDate d : {CivilDate{2026, 1, 1}, CivilDate{2026, 2, 2}, CivilDate{2026, 3, 16}, CivilDate{2026, 5, 1},
                      CivilDate{2026, 9, 16}, CivilDate{2026, 11, 16}, CivilDate{2026, 12, 25}, CivilDate{2024, 10, 1},
                      CivilDate{2030, 10, 1}, CivilDate{2027, 2, 1}, CivilDate{2027, 3, 15}, CivilDate{2027, 11, 15}}) {
    CAPTURE(d.Iso());
    CHECK(IsOfficialRestDay(d));
  }
  for (CivilDate d : {CivilDate{2026, 2, 5}, CivilDate{2026, 3, 21}, CivilDate{2026, 11, 20}, CivilDate{2025, 10, 1},
                      CivilDate{2026, 12, 12}, CivilDate{2026, 11, 2}}) {
    CAPTURE(d.Iso());
    CHECK_FALSE(IsOfficialRestDay(d));
  }
  BusinessCalendar cal;
  CHECK_FALSE(cal.IsBusinessDay({2026, 11, 14}));  // Saturday
  CHECK_FALSE(cal.IsBusinessDay({2026, 11, 16}));  // the third Monday of November
  CHECK(cal.IsBusinessDay({2026, 11, 17}));
  // Received on Friday 13 November 2026: the first day of the term is Tuesday 17 (a weekend and a
  // rest day between); 20 business days end on 14 December; 15 more cross Christmas and New Year.
  CHECK(cal.AddBusinessDays({2026, 11, 13}, 1) == CivilDate{2026, 11, 17});
  CHECK(cal.AddBusinessDays({2026, 11, 13}, 20) == CivilDate{2026, 12, 14});
  CHECK(cal.AddBusinessDays({2026, 12, 14}, 15) == CivilDate{2027, 1, 6});
  CHECK(cal.AddBusinessDays({2026, 11, 14}, 1) == CivilDate{2026, 11, 17});  // received on a Saturday
  CHECK(cal.BusinessDaysBetween({2026, 11, 13}, {2026, 12, 14}) == 20);
  CHECK(cal.BusinessDaysBetween({2026, 12, 14}, {2026, 12, 14}) == 0);
  BusinessCalendar closed({CivilDate{2026, 11, 17}});  // an extra day off decreed
  CHECK(closed.AddBusinessDays({2026, 11, 13}, 1) == CivilDate{2026, 11, 18});
  // Mexico City is UTC-6: its 14 December ends (its last millisecond) at 05:59:59.999 UTC on the 15th.
  CHECK(EndOfMexicoCityDay({2026, 12, 14}) == 1797314399999000LL);
  CHECK(MexicoCityDate(1797314399999999LL) == CivilDate{2026, 12, 14});
  CHECK(MexicoCityDate(1797314400000000LL) == CivilDate{2026, 12, 15});
  CHECK(ParseCivilDate("2026-04-02").value() == CivilDate{2026, 4, 2});
  CHECK_FALSE(ParseCivilDate("2026-02-30").ok());
  CHECK_FALSE(ParseCivilDate("26-02-03").ok());
}

}  // namespace core_mx_ids_test
