// Listings off the UI thread: one worker makes them (make_listing: a second or more the first
// time, when cuobjdump extracts the executable's cubins) and keeps each by its request's key, so
// going back to a kernel shows its listing at once. A newer request replaces one still waiting.
#pragma once
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "source/listing.hpp"

namespace bs::source {

class ListingWorker {
 public:
  ListingWorker();
  ~ListingWorker();  // waits for the listing in hand (each tool has a time limit)
  ListingWorker(const ListingWorker&) = delete;
  ListingWorker& operator=(const ListingWorker&) = delete;

  // The listing for `request` when made; else starts it (unless it is the one being made) and
  // returns null.
  std::shared_ptr<const KernelListing> get(const ListingRequest& request);
  // True while a listing is waiting or being made.
  bool busy() const;
  // Listings finished since the last call (the window redraws when one arrives).
  int take_finished();

 private:
  void loop();
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<ListingRequest> waiting_;
  std::string making_;  // key of the listing in hand
  std::map<std::string, std::shared_ptr<const KernelListing>> done_;
  int finished_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace bs::source
