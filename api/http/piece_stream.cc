#include "api/http/piece_stream.h"

#include <atomic>
#include <optional>
#include <utility>

namespace svc::api {

namespace {

class Pieces final : public ResponseStream, public std::enable_shared_from_this<Pieces> {
 public:
  Pieces(std::function<core::Result<std::string>()> next, core::ThreadPool* pool) : next_(std::move(next)), pool_(pool) {}
  void Next(std::function<void(std::optional<std::string>)> deliver) override {
    auto step = [self = shared_from_this(), deliver = std::move(deliver)] {
      if (self->finished_.load()) return deliver(std::nullopt);
      auto piece = self->next_();
      if (!piece.ok()) {
        self->failed_ = true;
        return deliver(std::nullopt);
      }
      if (piece->empty()) return deliver(std::nullopt);
      deliver(std::move(*piece));
    };
    if (pool_ == nullptr) return step();
    pool_->Post(std::move(step));
  }
  void Finish() override { finished_ = true; }
  bool Failed() const override { return failed_.load(); }

 private:
  std::function<core::Result<std::string>()> next_;
  core::ThreadPool* pool_;
  std::atomic<bool> finished_{false};
  std::atomic<bool> failed_{false};
};

}  // namespace

std::shared_ptr<ResponseStream> PieceStream(std::function<core::Result<std::string>()> next, core::ThreadPool* pool) {
  return std::make_shared<Pieces>(std::move(next), pool);
}

}  // namespace svc::api
