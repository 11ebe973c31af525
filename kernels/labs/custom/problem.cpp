#include "labs/custom/problem.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "labs/matmul/matmul.hpp"

namespace bs::custom {

namespace {

std::size_t page_align(std::size_t b) { return (b + 4095) / 4096 * 4096; }

Result<std::shared_ptr<Problem::Data>> make_data(std::string lab, Shape shape,
                                                 std::vector<std::span<const std::uint8_t>> inputs,
                                                 std::vector<unsigned> elem_sizes) {
  auto d = std::make_shared<Problem::Data>();
  d->lab = std::move(lab);
  d->shape = shape;
  std::size_t total = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    InputBuffer b;
    b.offset = total;
    b.elem_size = elem_sizes[i];
    b.count = static_cast<long long>(inputs[i].size() / elem_sizes[i]);
    d->inputs.push_back(b);
    total += page_align(inputs[i].size());
  }
  d->bytes = std::max<std::size_t>(total, 4096);
  d->memfd = memfd_create("blockscope-problem", MFD_CLOEXEC);
  if (d->memfd < 0)
    return Status::failure(std::string("cannot create shared memory for the problem: ") +
                               std::strerror(errno),
                           "", "memfd_create");
  if (ftruncate(d->memfd, static_cast<off_t>(d->bytes)) != 0)
    return Status::failure(std::string("cannot size the problem's shared memory: ") +
                               std::strerror(errno),
                           "is /dev/shm or memory full?", "ftruncate");
  void* p = mmap(nullptr, d->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, d->memfd, 0);
  if (p == MAP_FAILED)
    return Status::failure(std::string("cannot map the problem's shared memory: ") +
                               std::strerror(errno),
                           "", "mmap");
  d->map = static_cast<unsigned char*>(p);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    std::memcpy(d->map + d->inputs[i].offset, inputs[i].data(), inputs[i].size());
  return d;
}

}  // namespace

Problem::Data::~Data() {
  if (map) munmap(map, bytes);
  if (memfd >= 0) close(memfd);
}

const std::vector<std::uint8_t>& Problem::Data::gray_reference() const {
  std::call_once(once_, [this] {
    // In double precision straight from the planar input, truncated like the lecture's store.
    const long long n = shape.n();
    const std::uint8_t* x = bytes_of(0);
    gray_ref_.resize(static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i)
      gray_ref_[i] = static_cast<std::uint8_t>(0.2989 * x[i] + 0.5870 * x[i + n] + 0.1140 * x[i + 2 * n]);
  });
  return gray_ref_;
}

const Problem::Data::MatmulReference& Problem::Data::matmul_reference() const {
  std::call_once(once_, [this] {
    auto r = std::make_shared<MatmulReference>();
    const int h = static_cast<int>(shape.h), w = static_cast<int>(shape.w),
              k = static_cast<int>(shape.k);
    const auto* m = reinterpret_cast<const float*>(bytes_of(0));
    const auto* n = reinterpret_cast<const float*>(bytes_of(1));
    r->c.resize(static_cast<std::size_t>(h) * w);
    (void)matmul::cpu_reference(m, n, r->c.data(), h, w, k);
    r->scale = matmul::error_scale(m, n, h, w, k);
    matmul_ref_ = std::move(r);
  });
  return *matmul_ref_;
}

Result<Problem> Problem::gray(std::span<const std::uint8_t> planar_rgb, int width, int height) {
  if (width < 1 || height < 1)
    return Status::failure("the image is empty (" + std::to_string(width) + " x " +
                               std::to_string(height) + ")",
                           "", "Problem::gray");
  const long long n = static_cast<long long>(width) * height;
  if (n > (1ll << 29))
    return Status::failure("the image has " + std::to_string(n) +
                               " pixels; a kernel's int n allows at most 2^29 planar RGB pixels",
                           "", "Problem::gray");
  if (static_cast<long long>(planar_rgb.size()) != 3 * n)
    return Status::failure("planar RGB of " + std::to_string(width) + " x " +
                               std::to_string(height) + " needs " + std::to_string(3 * n) +
                               " bytes, got " + std::to_string(planar_rgb.size()),
                           "", "Problem::gray");
  auto d = make_data("gray", Shape{width, height, 0}, {planar_rgb}, {1});
  if (!d) return d.status();
  (*d)->output_count = n;
  (*d)->output_elem_size = 1;
  // 255 is a value no grayscale kernel computes (the weights sum to 0.9999), so a pixel no
  // thread wrote is wrong, not accidentally right (the lecture's torch::empty is garbage too).
  (*d)->output_fill = 0xFF;
  Problem p;
  p.d_ = std::move(*d);
  return p;
}

Result<Problem> Problem::matmul(std::span<const float> m, std::span<const float> n, int h, int w,
                                int k) {
  if (Status s = matmul::check_matmul_sizes(h, w, k); !s) return s;
  if (static_cast<long long>(h) * k > (1ll << 31) - 1 || static_cast<long long>(k) * w > (1ll << 31) - 1 ||
      static_cast<long long>(h) * w > (1ll << 31) - 1)
    return Status::failure("a matrix has more elements than a kernel's int index reaches", "",
                           "Problem::matmul");
  if (static_cast<long long>(m.size()) != static_cast<long long>(h) * k ||
      static_cast<long long>(n.size()) != static_cast<long long>(k) * w)
    return Status::failure("m must be h x k and n k x w", "", "Problem::matmul");
  auto as_bytes = [](std::span<const float> s) {
    return std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()),
                                         s.size() * sizeof(float));
  };
  auto d = make_data("matmul", Shape{w, h, k}, {as_bytes(m), as_bytes(n)}, {4, 4});
  if (!d) return d.status();
  (*d)->output_count = static_cast<long long>(h) * w;
  (*d)->output_elem_size = 4;
  (*d)->output_fill = 0;  // zeros, as the lecture's torch::zeros
  Problem p;
  p.d_ = std::move(*d);
  return p;
}

std::string_view Problem::lab() const { return d_ ? std::string_view(d_->lab) : std::string_view(); }
Shape Problem::shape() const { return d_ ? d_->shape : Shape{}; }

std::string Problem::summary() const {
  if (!d_) return "no problem";
  const Shape s = d_->shape;
  if (d_->lab == "gray")
    return std::to_string(s.w) + " x " + std::to_string(s.h) + " image, planar RGB";
  return "out " + std::to_string(s.h) + " x " + std::to_string(s.w) + " = m " +
         std::to_string(s.h) + " x " + std::to_string(s.k) + " * n " + std::to_string(s.k) +
         " x " + std::to_string(s.w);
}

}  // namespace bs::custom
