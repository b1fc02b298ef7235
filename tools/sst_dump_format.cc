// sst_dump's text: escaped keys, the properties listing and the raw dump.

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/filename.h"
#include "db/filter_rebuild.h"
#include "db/log_reader.h"
#include "db/version_edit.h"
#include "sift/env.h"
#include "table/block.h"
#include "table/format.h"
#include "table/internal_key.h"
#include "tools/sst_dump.h"
#include "util/status_macros.h"

namespace sift::sst_dump {

namespace {

// The bytes of the replacement filter the database around `path` records
// for it (db/FORMAT.md, "Filter files"): only when path is a table file in
// a directory with a CURRENT, whose MANIFEST names a readable replacement.
// Otherwise nothing, and the table's own filter is shown -- as the DB
// itself falls back to it.
std::optional<std::string> ActiveReplacementFilter(Env* env,
                                                   const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : path.substr(0, slash);
  uint64_t number, manifest_number;
  FileType type;
  std::string current, contents;
  if (!ParseFileName(path.substr(slash + 1), &number, &type) ||
      type != FileType::kTable ||
      !ReadFileToString(env, CurrentFileName(dir), &current).ok() ||
      current.empty() ||
      !ParseFileName(std::string_view(current).substr(0, current.size() - 1),
                     &manifest_number, &type) ||
      type != FileType::kManifest) {
    return std::nullopt;
  }
  const std::string manifest = ManifestFileName(dir, manifest_number);
  if (!ReadFileToString(env, manifest, &contents).ok()) return std::nullopt;
  // Replay the edits for this one file: removals before additions, as the
  // DB applies an edit.
  std::optional<ReplacementFilter> replacement;
  log::Reader reader = log::Reader::ForManifest(contents, manifest);
  std::string_view record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    VersionEdit edit;
    if (!edit.DecodeFrom(record).ok()) return std::nullopt;
    for (const auto& [level, n] : edit.deleted_files_) {
      if (n == number) replacement.reset();
    }
    for (const auto& [level, f] : edit.new_files_) {
      if (f->number == number) {
        replacement = f->facts ? f->facts->replacement : std::nullopt;
      }
    }
  }
  if (!replacement.has_value()) return std::nullopt;
  absl::StatusOr<std::string> bytes =
      ReadFilterFile(env, dir, number, *replacement);
  if (!bytes.ok()) return std::nullopt;
  return *std::move(bytes);
}

}  // namespace

absl::StatusOr<SstFile> OpenSst(const std::string& path) {
  Env* env = Env::Default();
  ASSIGN_OR_RETURN(uint64_t size, env->GetFileSize(path));
  ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                   env->NewRandomAccessFile(path));
  SstFile f;
  f.path = path;
  f.cache = std::make_unique<BlockCache>(size_t{8} << 20);
  const std::optional<std::string> replacement =
      ActiveReplacementFilter(env, path);
  std::optional<std::string_view> view;
  if (replacement.has_value()) view = *replacement;
  ASSIGN_OR_RETURN(f.table,
                   Table::Open(path, std::move(file), size, f.cache.get(),
                               BytewiseComparator(), 0, view));
  return f;
}

std::string Printable(std::string_view bytes, bool output_hex) {
  std::string out;
  out.reserve(bytes.size() * (output_hex ? 2 : 1));
  for (const char ch : bytes) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (output_hex) {
      absl::StrAppendFormat(&out, "%02X", c);
    } else if (c == '\\' || c == '\'') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(ch);
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    }
  }
  return out;
}

std::string InternalKeyText(std::string_view ikey) {
  ParsedInternalKey pk;
  if (!ParseInternalKey(ikey, &pk)) {
    return absl::StrCat("(bad internal key) '", Printable(ikey, false), "'");
  }
  return absl::StrCat("'", Printable(pk.user_key, false), "' @ ", pk.sequence,
                      " : ", static_cast<int>(pk.type));
}

std::string EntryText(const ParsedInternalKey& key, std::string_view value,
                      bool output_hex) {
  return absl::StrCat("'", Printable(key.user_key, output_hex),
                      "' seq:", key.sequence,
                      ", type:", static_cast<int>(key.type), " => ",
                      Printable(value, output_hex));
}

namespace {

std::string Average(uint64_t total, uint64_t n) {
  return absl::StrFormat(
      "%.6f",
      n == 0 ? 0.0 : static_cast<double>(total) / static_cast<double>(n));
}

void AppendFilter(const Table& table, std::string* s) {
  const TableProperties& p = table.properties();
  auto line = [s](std::string_view name, const auto& value) {
    absl::StrAppend(s, "  ", absl::string_view(name.data(), name.size()), ": ",
                    value, "\n");
  };
  if (p.filter_size == 0) {
    line("filter policy name", "N/A");
    line("filter fp chance",
         absl::StrFormat("%g (no filter)", p.bloom_filter_fp_chance));
    return;
  }
  const FilterReader& f = table.filter();
  line("filter policy name",
       absl::StrCat("sift.bloom.", FilterLayoutName(p.filter_layout)));
  line("filter layout", FilterLayoutName(p.filter_layout));
  line("filter fp chance", absl::StrFormat("%g", p.bloom_filter_fp_chance));
  line("# entries for filter", p.filter_num_keys);
  line("filter bits per key", absl::StrFormat("%.3f", p.filter_bits_per_key));
  line("filter probes", p.filter_num_probes);
  // The filter reads use: a replacement filter the DB records for this
  // table (db/FORMAT.md, "Filter files") in place of its own.
  line("filter in use",
       table.filter_is_replacement()
           ? absl::StrFormat("replacement filter file (%s, %.3f bits/key)",
                             FilterLayoutName(f.layout()), f.bits_per_key())
           : std::string(table.has_filter() ? "the table's own" : "none"));
  if (table.has_filter()) {
    line("filter bits", f.num_bits());
    // The layout's model at the filter's own bits per key and probes: what
    // this file's filter should give, whatever the options were.
    line("filter expected fp rate",
         absl::StrFormat("%.6g (%s model, %.3f bits/key, %d probes)",
                         f.ExpectedFpRate(), FilterLayoutName(f.layout()),
                         f.bits_per_key(), f.num_probes()));
    line("filter status", "ok");
  } else {
    line("filter status", absl::StrCat("unusable, reads skip it: ",
                                       table.filter_status().ToString()));
  }
}

}  // namespace

std::string PropertiesText(const Table& table) {
  const TableProperties& p = table.properties();
  std::string s = "Table Properties:\n------------------------------\n";
  auto line = [&s](std::string_view name, const auto& value) {
    absl::StrAppend(&s, "  ", absl::string_view(name.data(), name.size()), ": ",
                    value, "\n");
  };
  line("# data blocks", p.num_data_blocks);
  line("# entries", p.num_entries);
  line("# deletions", p.num_deletions);
  line("# range deletions", p.num_range_deletions);
  line("raw key size", p.raw_key_size);
  line("raw average key size", Average(p.raw_key_size, p.num_entries));
  line("raw value size", p.raw_value_size);
  line("raw average value size", Average(p.raw_value_size, p.num_entries));
  line("data block size", p.data_size);
  line("index block size", p.index_size);
  line("filter block size", p.filter_size);
  line("(estimated) table size", p.data_size + p.index_size + p.filter_size);
  AppendFilter(table, &s);
  line("SST file compression algo",
       p.compression == Compression::kSnappy ? "Snappy" : "NoCompression");
  line("comparator name",
       p.comparator_name.empty() ? "N/A" : p.comparator_name);
  line("column family ID",
       p.column_family_id == TableProperties::kUnknownColumnFamily
           ? "N/A"
           : absl::StrCat(p.column_family_id));
  line("column family name",
       p.column_family_name.empty() ? "N/A" : p.column_family_name);
  line("creation time", p.creation_time);
  line("format version", p.format_version);
  line("smallest key",
       absl::StrCat("'", Printable(p.smallest_key, false), "'"));
  line("largest key", absl::StrCat("'", Printable(p.largest_key, false), "'"));
  line("file size", table.file_size());
  return s;
}

namespace {

std::string HandleText(const BlockHandle& h) {
  return absl::StrFormat("offset %u, size %u", h.offset, h.size);
}

// Every entry of one block: hex on one line, readable on the next.
absl::Status DumpBlock(const RandomAccessFile& file, const std::string& path,
                       const BlockHandle& h, bool internal_keys,
                       bool handle_values, std::string* out) {
  BlockContents contents;
  RETURN_IF_ERROR(ReadBlock(file, path, h, &contents));
  Block block(std::move(contents));
  if (!block.status().ok()) {
    const absl::string_view m = block.status().message();
    return CorruptionError(path, h.offset,
                           std::string_view(m.data(), m.size()));
  }
  std::unique_ptr<Iterator> it = block.NewIterator(
      internal_keys ? KeyComparator::Internal(BytewiseComparator())
                    : KeyComparator::Bytes());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view k = it->key();
    std::string_view v = it->value();
    std::string readable_value = absl::StrCat("'", Printable(v, false), "'");
    if (handle_values) {
      BlockHandle vh;
      readable_value = vh.DecodeFrom(&v) ? HandleText(vh) : "(bad handle)";
    }
    absl::StrAppend(out, "  HEX    ", Printable(k, true), ": ",
                    Printable(it->value(), true), "\n  ASCII  ",
                    internal_keys ? InternalKeyText(k)
                                  : absl::StrCat("'", Printable(k, false), "'"),
                    " => ", readable_value, "\n  ------\n");
  }
  if (!it->status().ok()) {
    const absl::string_view m = it->status().message();
    return CorruptionError(path, h.offset,
                           std::string_view(m.data(), m.size()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteRawDump(const SstFile& f, const std::string& out_path) {
  Env* env = Env::Default();
  ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                   env->NewRandomAccessFile(f.path));
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> dump,
                   env->NewWritableFile(out_path));
  const Table& t = *f.table;
  char buf[kFooterSize];
  std::string_view footer_bytes;
  RETURN_IF_ERROR(
      file->Read(t.file_size() - kFooterSize, kFooterSize, &footer_bytes, buf));
  Footer footer;
  RETURN_IF_ERROR(
      footer.DecodeFrom(footer_bytes, f.path, t.file_size() - kFooterSize));
  std::string out = absl::StrFormat(
      "Footer Details:\n--------------------------------------\n"
      "  metaindex handle: %s\n  index handle: %s\n"
      "  table magic number: 0x%016x\n  format version: %u\n\n"
      "Metaindex Details:\n--------------------------------------\n",
      HandleText(footer.metaindex), HandleText(footer.index), kTableMagicNumber,
      footer.format_version);
  RETURN_IF_ERROR(
      DumpBlock(*file, f.path, footer.metaindex, false, true, &out));
  absl::StrAppend(&out, "\n", PropertiesText(t), "\n");
  absl::StrAppend(&out, "Blocks:\n--------------------------------------\n");
  for (const Table::BlockInfo& b : t.Blocks()) {
    absl::StrAppend(&out, "  ", b.kind, ": ", HandleText(b.handle), "\n");
  }
  absl::StrAppend(&out,
                  "\nIndex Details:\n--------------------------------------\n");
  RETURN_IF_ERROR(DumpBlock(*file, f.path, footer.index, true, true, &out));
  // Data blocks are written one at a time: a large file's dump need not fit
  // in memory.
  int n = 0;
  for (const Table::BlockInfo& b : t.Blocks()) {
    if (b.kind != "data") continue;
    absl::StrAppendFormat(&out,
                          "\nData Block # %d @ %s\n"
                          "--------------------------------------\n",
                          ++n, HandleText(b.handle));
    RETURN_IF_ERROR(DumpBlock(*file, f.path, b.handle, true, false, &out));
    RETURN_IF_ERROR(dump->Append(out));
    out.clear();
  }
  RETURN_IF_ERROR(dump->Append(out));
  return dump->Close();
}

}  // namespace sift::sst_dump
