#include "pipeline/biometrics/video.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

namespace svc::pipeline::biometrics {

namespace {

struct Reader {
  std::string_view data;
  int64_t pos = 0;
};

int ReadPacket(void* opaque, uint8_t* buf, int size) {
  auto* r = static_cast<Reader*>(opaque);
  int64_t left = static_cast<int64_t>(r->data.size()) - r->pos;
  if (left <= 0) return AVERROR_EOF;
  int n = static_cast<int>(std::min<int64_t>(left, size));
  std::memcpy(buf, r->data.data() + r->pos, static_cast<size_t>(n));
  r->pos += n;
  return n;
}

int64_t Seek(void* opaque, int64_t offset, int whence) {
  auto* r = static_cast<Reader*>(opaque);
  int64_t size = static_cast<int64_t>(r->data.size());
  if (whence == AVSEEK_SIZE) return size;
  int64_t base = (whence & ~AVSEEK_FORCE) == SEEK_CUR ? r->pos : (whence & ~AVSEEK_FORCE) == SEEK_END ? size : 0;
  int64_t to = base + offset;
  if (to < 0 || to > size) return -1;
  r->pos = to;
  return to;
}

core::Status Bad(const std::string& what) {
  return core::InvalidArgument("not a decodable video: " + what);
}

}  // namespace

core::Result<VideoSample> SampleVideo(std::string_view bytes, int max_frames, int max_side) {
  Reader reader{bytes, 0};
  constexpr int kBuf = 64 * 1024;
  auto* buf = static_cast<uint8_t*>(av_malloc(kBuf));
  AVIOContext* io = avio_alloc_context(buf, kBuf, 0, &reader, &ReadPacket, nullptr, &Seek);
  AVFormatContext* fmt = avformat_alloc_context();
  fmt->pb = io;
  fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
  AVCodecContext* dec = nullptr;
  SwsContext* sws = nullptr;
  AVFrame* frame = av_frame_alloc();
  AVPacket* pkt = av_packet_alloc();
  auto cleanup = [&] {
    av_packet_free(&pkt);
    av_frame_free(&frame);
    sws_freeContext(sws);
    avcodec_free_context(&dec);
    avformat_close_input(&fmt);  // frees fmt (not the custom io)
    if (io != nullptr) {
      av_freep(&io->buffer);
      avio_context_free(&io);
    }
  };
  struct Guard {
    std::function<void()> f;
    ~Guard() { f(); }
  } guard{cleanup};

  if (avformat_open_input(&fmt, nullptr, nullptr, nullptr) < 0) return Bad("unknown container");
  if (avformat_find_stream_info(fmt, nullptr) < 0) return Bad("no stream information");
  const AVCodec* codec = nullptr;
  int stream = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
  if (stream < 0 || codec == nullptr) return Bad("no video stream");
  AVStream* st = fmt->streams[stream];
  dec = avcodec_alloc_context3(codec);
  if (avcodec_parameters_to_context(dec, st->codecpar) < 0) return Bad("codec parameters");
  dec->thread_count = 1;
  if (avcodec_open2(dec, codec, nullptr) < 0) return Bad("cannot open the decoder");

  VideoSample out;
  out.width = dec->width;
  out.height = dec->height;
  out.codec = codec->name;
  if (out.width <= 0 || out.height <= 0 || out.width > 8192 || out.height > 8192) return Bad("size");
  double tb = av_q2d(st->time_base);
  if (st->duration > 0) out.duration_seconds = st->duration * tb;
  else if (fmt->duration > 0) out.duration_seconds = fmt->duration / double(AV_TIME_BASE);
  // Frame count: from the container, else duration x frame rate (WebM carries no count).
  double fps = st->avg_frame_rate.num > 0 && st->avg_frame_rate.den > 0 ? av_q2d(st->avg_frame_rate)
               : st->r_frame_rate.num > 0 && st->r_frame_rate.den > 0   ? av_q2d(st->r_frame_rate)
                                                                        : 25.0;
  int64_t total = st->nb_frames > 0 ? st->nb_frames
                                    : std::max<int64_t>(1, std::lround(out.duration_seconds * fps));
  // Even sampling over the whole video: frame k*step for k = 0, 1, … (step may be fractional).
  double step = std::max(1.0, double(total) / std::max(1, max_frames));
  double next = 0;

  double scale = std::min(1.0, double(max_side) / std::max(out.width, out.height));
  int ow = std::max(2, static_cast<int>(out.width * scale)), oh = std::max(2, static_cast<int>(out.height * scale));
  int index = 0;
  std::vector<uint8_t> previous, current;
  std::vector<double> differences;  // mean |luma change| of each consecutive pair
  std::vector<bool> bidirectional;  // either frame of the pair a B-frame
  bool previous_b = false;
  auto compare = [&] {
    // Planar formats keep luma (YUV) or green (GBR) alone in plane 0, one byte a pixel; packed
    // formats are not compared.
    const auto* desc = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(frame->format));
    if (desc == nullptr || (desc->flags & AV_PIX_FMT_FLAG_PLANAR) == 0 || desc->comp[0].depth > 8 ||
        frame->data[0] == nullptr) {
      return;
    }
    current.clear();
    for (int r = 0; r < frame->height; r += 4) {
      const uint8_t* row = frame->data[0] + static_cast<ptrdiff_t>(r) * frame->linesize[0];
      for (int c = 0; c < frame->width; c += 4) current.push_back(row[c]);
    }
    const bool is_b = frame->pict_type == AV_PICTURE_TYPE_B;
    if (!previous.empty() && previous.size() == current.size()) {
      double sum = 0;
      for (size_t i = 0; i < current.size(); ++i) sum += std::abs(int(current[i]) - int(previous[i]));
      differences.push_back(sum / static_cast<double>(current.size()));
      bidirectional.push_back(is_b || previous_b);
    }
    previous_b = is_b;
    std::swap(previous, current);
  };
  auto take = [&]() -> core::Status {
    compare();
    if (index++ < next || static_cast<int>(out.frames.size()) >= max_frames) return core::Status::Ok();
    next += step;
    sws = sws_getCachedContext(sws, frame->width, frame->height, static_cast<AVPixelFormat>(frame->format), ow,
                               oh, AV_PIX_FMT_RGB24, SWS_BILINEAR, nullptr, nullptr, nullptr);
    if (sws == nullptr) return Bad("pixel format");
    // swscale writes whole SIMD blocks: give it an aligned, padded buffer, then copy the rows.
    int padded = FFALIGN(ow * 3, 64);
    std::vector<uint8_t> buffer(static_cast<size_t>(padded) * (oh + 1) + 64);
    uint8_t* dst[4] = {buffer.data(), nullptr, nullptr, nullptr};
    int stride[4] = {padded, 0, 0, 0};
    sws_scale(sws, frame->data, frame->linesize, 0, frame->height, dst, stride);
    Image img;
    img.width = ow;
    img.height = oh;
    img.rgb.resize(static_cast<size_t>(ow) * oh * 3);
    for (int r = 0; r < oh; ++r) {
      std::memcpy(&img.rgb[static_cast<size_t>(r) * ow * 3], &buffer[static_cast<size_t>(r) * padded],
                  static_cast<size_t>(ow) * 3);
    }
    out.frames.push_back(std::move(img));
    return core::Status::Ok();
  };
  while (av_read_frame(fmt, pkt) >= 0) {
    if (pkt->stream_index == stream) {
      if (avcodec_send_packet(dec, pkt) < 0) {
        av_packet_unref(pkt);
        return Bad("corrupt packet");
      }
      while (avcodec_receive_frame(dec, frame) == 0) SVC_RETURN_IF_ERROR(take());
    }
    av_packet_unref(pkt);
  }
  avcodec_send_packet(dec, nullptr);  // flush
  while (avcodec_receive_frame(dec, frame) == 0) SVC_RETURN_IF_ERROR(take());
  if (out.frames.empty()) return Bad("no frames");
  // A pair is a repeat when it changed far less than the pairs around it (the 15 nearest, its
  // own included) typically do: a repeated picture re-encoded is not identical to the pixel (the
  // encoder refines a still picture, more at first), but its change is a fraction of a moving,
  // noisy camera picture's.
  const size_t pairs = differences.size();
  for (size_t i = 0; i < pairs; ++i) {
    size_t from = i >= 7 ? i - 7 : 0, to = std::min(pairs, from + 15);
    from = to >= 15 ? to - 15 : 0;
    std::vector<double> around(differences.begin() + static_cast<std::ptrdiff_t>(from),
                               differences.begin() + static_cast<std::ptrdiff_t>(to));
    std::nth_element(around.begin(), around.begin() + static_cast<std::ptrdiff_t>(around.size() / 2), around.end());
    const double median = around[around.size() / 2];
    const bool repeated = differences[i] <= kRepeatShare * median || differences[i] < 0.05;
    out.repeats.push_back(repeated);
    out.repeated_frames += repeated ? 1 : 0;
    // A B-frame is coded from both neighbours at a coarser quantiser: it changes less by design,
    // on the encoder's own beat. Such pairs say nothing of repeats.
    out.comparable.push_back(!bidirectional[i]);
  }
  out.frame_pairs = static_cast<int>(pairs);
  if (out.duration_seconds <= 0) out.duration_seconds = index / fps;
  return out;
}

}  // namespace svc::pipeline::biometrics
