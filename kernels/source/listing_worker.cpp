#include "source/listing_worker.hpp"

namespace bs::source {

ListingWorker::ListingWorker() : thread_([this] { loop(); }) {}

ListingWorker::~ListingWorker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    waiting_.reset();
  }
  wake_.notify_all();
  thread_.join();
}

std::shared_ptr<const KernelListing> ListingWorker::get(const ListingRequest& request) {
  const std::string key = request.key();
  std::lock_guard lock(mutex_);
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  if (making_ != key && !(waiting_ && waiting_->key() == key)) {
    waiting_ = request;
    wake_.notify_all();
  }
  return nullptr;
}

bool ListingWorker::busy() const {
  std::lock_guard lock(mutex_);
  return waiting_.has_value() || !making_.empty();
}

int ListingWorker::take_finished() {
  std::lock_guard lock(mutex_);
  return std::exchange(finished_, 0);
}

void ListingWorker::loop() {
  for (;;) {
    ListingRequest request;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || waiting_.has_value(); });
      if (stop_) return;
      request = std::move(*waiting_);
      waiting_.reset();
      making_ = request.key();
    }
    auto listing = std::make_shared<const KernelListing>(make_listing(request));
    std::lock_guard lock(mutex_);
    done_[making_] = std::move(listing);
    making_.clear();
    ++finished_;
  }
}

}  // namespace bs::source
