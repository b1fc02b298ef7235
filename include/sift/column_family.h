// Column families: separate keyspaces of one DB, each with its own
// ColumnFamilyOptions (comparator, write buffer, filters, ...), flushed and
// compacted apart, written together through one write-ahead log, so one
// DB::Write is atomic across families, also across a crash (RocksDB's
// model and names).
//
// Every DB has the family "default" (kDefaultColumnFamilyName); the DB
// methods without a handle argument mean it. DB::Open with a list of
// ColumnFamilyDescriptors opens the others; DB::CreateColumnFamily adds
// one, DB::DropColumnFamily removes one.

#ifndef SIFT_INCLUDE_COLUMN_FAMILY_H_
#define SIFT_INCLUDE_COLUMN_FAMILY_H_

#include <cstdint>
#include <string>

#include "sift/options.h"

namespace sift {

inline constexpr char kDefaultColumnFamilyName[] = "default";

// Names one family of one DB. A handle must be destroyed before its DB;
// the default family's handle is the DB's own (DB::DefaultColumnFamily())
// and is not destroyed by the caller. After DropColumnFamily a handle
// stays valid for GetName and GetID until destroyed; reads and writes
// through it are InvalidArgument.
class ColumnFamilyHandle {
 public:
  virtual ~ColumnFamilyHandle();
  virtual const std::string& GetName() const = 0;
  // Unique within the DB, never reused ("default" is 0).
  virtual uint32_t GetID() const = 0;
};

// A family to open (DB::Open) and the options it is opened with.
struct ColumnFamilyDescriptor {
  std::string name;
  ColumnFamilyOptions options;

  ColumnFamilyDescriptor() : name(kDefaultColumnFamilyName) {}
  ColumnFamilyDescriptor(std::string n, const ColumnFamilyOptions& o)
      : name(std::move(n)), options(o) {}
};

}  // namespace sift

#endif  // SIFT_INCLUDE_COLUMN_FAMILY_H_
