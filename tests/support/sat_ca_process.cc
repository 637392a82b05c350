#include "tests/support/sat_ca_process.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace svc::testing {

SatCaProcess::SatCaProcess(const std::string& dir) : dir_(dir) {
  child_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{"python3", std::string(SVC_TEST_SOURCE_DIR) + "/efirma/sat_ca.py", dir, "serve"});
  std::string s = child_->ReadLine();
  if (s.rfind("port ", 0) != 0) throw std::runtime_error("unexpected SAT CA output: " + s);
  port_ = std::stoi(s.substr(5));
}

std::string SatCaProcess::read(const std::string& name) const {
  std::ifstream in(file(name), std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void SatCaProcess::SetMode(const std::string& mode) {
  child_->WriteLine("mode " + mode);
  if (child_->ReadLine() != "ok") throw std::runtime_error("the SAT CA took no mode " + mode);
}

std::string SatCaProcess::Sign(const std::string& name, const std::string& message) const {
  const std::string pem = read(name + ".pem.key");
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (key == nullptr) throw std::runtime_error("no key " + name);
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  size_t len = 0;
  std::string sig;
  bool ok = EVP_DigestSignInit(md, nullptr, EVP_sha256(), nullptr, key) == 1 &&
            EVP_DigestSign(md, nullptr, &len, reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  if (ok) {
    sig.resize(len);
    ok = EVP_DigestSign(md, reinterpret_cast<unsigned char*>(sig.data()), &len,
                        reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
    sig.resize(len);
  }
  EVP_MD_CTX_free(md);
  EVP_PKEY_free(key);
  if (!ok) throw std::runtime_error("signing with " + name + " failed");
  return sig;
}

int SatCaProcess::Answered() {
  child_->WriteLine("count");
  return std::stoi(child_->ReadLine());
}

}  // namespace svc::testing
