// Benchmark (not a test): screening at list scale. A list of NAMES synthetic Mexican-style names
// (two given-name pools, two surnames from a pool of 160, deterministic seed) is indexed; then
// 2,000 queries are screened one at a time — half variants of listed names (a surname dropped, the
// surnames swapped, accents added, a nickname), half new names made from the same pools (the
// worst case for blocking: every token common) — for p50 and p99; then a portfolio of PORTFOLIO
// such names is screened on every core (names/s).
//   svc_bench_screening NAMES PORTFOLIO
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "core/crypto.h"
#include "pipeline/kyb/screening_index.h"

using namespace svc;
using Clock = std::chrono::steady_clock;

namespace {

const std::vector<std::string> kGiven = {
    "José", "Juan", "Luis", "Carlos", "Jorge", "Miguel", "Francisco", "Antonio", "Alejandro", "Roberto", "Fernando",
    "Ricardo", "Eduardo", "Javier", "Sergio", "Manuel", "Rafael", "Arturo", "Raúl", "Pedro", "Héctor", "Daniel",
    "Guillermo", "Enrique", "Óscar", "Alberto", "Ignacio", "Rodrigo", "Gerardo", "Víctor", "María", "Guadalupe",
    "Ana", "Rosa", "Patricia", "Laura", "Leticia", "Verónica", "Elizabeth", "Alejandra", "Gabriela", "Adriana",
    "Claudia", "Silvia", "Martha", "Teresa", "Yolanda", "Norma", "Araceli", "Sofía", "Ximena", "Valeria",
    "Fernanda", "Daniela", "Mariana", "Lucía", "Concepción", "Dolores", "Consuelo", "Isabel"};
const std::vector<std::string> kSurnames = {
    "Hernández", "García", "Martínez", "López", "González", "Pérez", "Rodríguez", "Sánchez", "Ramírez", "Cruz",
    "Flores", "Gómez", "Morales", "Vázquez", "Reyes", "Jiménez", "Torres", "Díaz", "Gutiérrez", "Ruiz", "Mendoza",
    "Aguilar", "Ortiz", "Moreno", "Castillo", "Romero", "Álvarez", "Méndez", "Chávez", "Rivera", "Juárez",
    "Ramos", "Domínguez", "Herrera", "Medina", "Castro", "Vargas", "Guzmán", "Velázquez", "Muñoz", "Rojas",
    "Contreras", "Salazar", "Luna", "Ortega", "Santiago", "Guerrero", "Estrada", "Bautista", "Cortés", "Soto",
    "Alvarado", "Espinoza", "Lara", "Ávila", "Ríos", "Cervantes", "Silva", "Delgado", "Vega", "Márquez", "Sandoval",
    "Fuentes", "Carrillo", "León", "Ayala", "Robles", "Solís", "Campos", "Mejía", "Navarro", "Ibarra", "Valdez",
    "Rosales", "Villarreal", "Zamora", "Acosta", "Pacheco", "Salinas", "Trejo", "Beltrán", "Quintero", "Nava",
    "Cárdenas", "Arellano", "Zúñiga", "Valencia", "Orozco", "Padilla", "Montes", "Cabrera", "Ochoa", "Rangel",
    "Bravo", "Cano", "Escobar", "Galindo", "Tapia", "Peña", "Serrano", "Macías", "Andrade", "Esparza", "Meza",
    "Lozano", "Barrera", "Osorio", "Villegas", "Olvera", "Molina", "Hidalgo", "Camacho", "Palacios", "Quiroz",
    "Figueroa", "Benítez", "Carmona", "Zavala", "Tovar", "Saucedo", "Arroyo", "Córdova", "Treviño", "Escamilla",
    "Maldonado", "Lugo", "Villa", "Montoya", "Esquivel", "Pineda", "Gallegos", "Cisneros", "Miranda", "Rubio",
    "Leyva", "Coronado", "Duarte", "Sosa", "Barajas", "Ornelas", "Calderón", "Loera", "Zambrano", "Mata",
    "Velasco", "Bernal", "Urbina", "Toledo", "Angulo", "Uribe", "Paredes", "Ponce", "Iglesias", "Garza",
    "Durán", "Solano", "Gallardo", "Villalobos", "Mora"};

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

int main(int argc, char** argv) {
  if (!core::InitCrypto().ok()) return 1;
  const size_t names = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 50000;
  const size_t portfolio = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10000;
  std::mt19937 rng(20261126);
  auto pick = [&rng](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  auto make = [&]() {
    std::string n = pick(kGiven);
    if (rng() % 3 == 0) n += " " + pick(kGiven);
    return n + " " + pick(kSurnames) + " " + pick(kSurnames);
  };
  pipeline::kyb::LoadedList list;
  list.format = "bench";
  list.content_hash = std::string(64, '0');
  for (size_t i = 0; i < names; ++i) {
    pipeline::kyb::ListEntry e;
    e.entry_id = std::to_string(i);
    e.kind = "person";
    e.name = make();
    list.entries.push_back(std::move(e));
  }
  auto t0 = Clock::now();
  pipeline::kyb::ScreeningIndex index({list});
  std::printf("screening: index of %zu names built in %.0f ms\n", index.Names(), Ms(Clock::now() - t0));

  std::vector<std::string> queries;
  for (size_t i = 0; i < 2000; ++i) {
    if (i % 2 == 0) {
      const auto& e = index.Lists()[0].entries[rng() % names];
      auto tokens = pipeline::kyb::NameTokens(e.name);
      std::string q;
      switch (i / 2 % 3) {
        case 0: tokens.pop_back(); break;  // a surname dropped
        case 1: std::swap(tokens[tokens.size() - 1], tokens[tokens.size() - 2]); break;  // swapped
        default: break;  // as listed, folded
      }
      for (const auto& t : tokens) q += (q.empty() ? "" : " ") + t;
      queries.push_back(q);
    } else {
      queries.push_back(make());
    }
  }
  std::vector<double> ms;
  size_t hits = 0, variants_found = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    auto s = Clock::now();
    auto h = index.Screen({queries[i], "person", {}, {}});
    ms.push_back(Ms(Clock::now() - s));
    hits += h.size();
    if (i % 2 == 0 && !h.empty()) ++variants_found;
  }
  std::sort(ms.begin(), ms.end());
  std::printf("screening: one name against %zu list names: p50 %.3f ms, p99 %.3f ms, max %.3f ms "
              "(%zu queries, %zu hits; %zu of %zu listed-name variants found)\n",
              names, ms[ms.size() / 2], ms[ms.size() * 99 / 100], ms.back(), queries.size(), hits, variants_found,
              queries.size() / 2);

  std::vector<std::string> people;
  for (size_t i = 0; i < portfolio; ++i) people.push_back(make());
  std::atomic<size_t> next{0}, found{0};
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  t0 = Clock::now();
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (size_t i = next++; i < people.size(); i = next++) found += index.Screen({people[i], "person", {}, {}}).size();
    });
  }
  for (auto& t : pool) t.join();
  const double s = Ms(Clock::now() - t0) / 1000;
  std::printf("screening: a portfolio of %zu persons on %u threads: %.2f s = %.0f names/s (%zu hits)\n", portfolio,
              threads, s, portfolio / s, found.load());
  return 0;
}
