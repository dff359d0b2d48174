#pragma once
// Multi-command reads of a BMC's repositories, each a loop of the commands in
// repository_commands.hpp with the care real BMCs need: partial SDR reads that shrink when the
// BMC says the chunk is too large (C7h/C8h/CAh), a new reservation when it was cancelled (C5h),
// FRU reads that shrink the same way, and caps on every loop so that a BMC whose "next record"
// links go round in circles cannot keep the driver busy.
#include <boost/asio/awaitable.hpp>
#include <variant>
#include <vector>

#include "bmc/ipmi/bmc_link.hpp"
#include "bmc/ipmi/fru.hpp"
#include "bmc/ipmi/repository_commands.hpp"
#include "bmc/ipmi/sdr.hpp"
#include "bmc/ipmi/sel.hpp"

namespace ironhold::bmc::ipmi {

struct ReadLimits {
  std::size_t max_records = 1024;  // SDR and SEL entries per read
  std::uint8_t first_chunk = 32;   // bytes per partial read before any shrinking
  std::uint8_t min_chunk = 4;
  std::size_t max_fru_bytes = 4096;
};

// Every record of the SDR repository, decoded; records that do not decode are skipped and
// counted in `skipped`.
struct SdrRepository {
  std::vector<SdrRecord> records;
  std::size_t skipped = 0;
};
boost::asio::awaitable<std::variant<SdrRepository, DriverError>> read_sdr_repository(
    BmcLink& link, ReadLimits limits = {});

// The SEL's summary and every entry, oldest first; undecodable entries are skipped.
struct SelContents {
  SelInfo info;
  std::vector<SelEntry> entries;
};
boost::asio::awaitable<std::variant<SelInfo, DriverError>> read_sel_info(BmcLink& link);
boost::asio::awaitable<std::variant<SelContents, DriverError>> read_sel(BmcLink& link,
                                                                        ReadLimits limits = {});

// A FRU inventory device's bytes, read in shrinking chunks, and parsed.
boost::asio::awaitable<std::variant<FruData, DriverError>> read_fru(BmcLink& link,
                                                                    std::uint8_t fru_id,
                                                                    ReadLimits limits = {});

}  // namespace ironhold::bmc::ipmi
