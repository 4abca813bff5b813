// inventory.cc - the C++ test program of the LLVM export
// (tests/e2e/61-llvm-export-clang.sh): what C++ code brings that C code
// does not, in about a third of a second at -O2.
//
//   - virtual calls through a base class (indirect calls);
//   - std::sort with a lambda, std::unordered_map with std::string keys,
//     std::vector growth: hot code inlined from libstdc++'s headers;
//   - a function template instantiated for two types;
//   - functions with internal linkage (in an anonymous namespace), whose
//     linkage names are mangled (_ZN12_GLOBAL__N_1...).
//
// The output depends only on the scale argument (unsigned arithmetic only),
// so a build with a profile must print what the -O2 build prints.
//
// Usage: inventory [SCALE]   SCALE is a percentage of the default work.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

std::uint64_t next_random(std::uint64_t &state)
{
    std::uint64_t x = state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return state = x;
}

struct Item {
    std::uint32_t id;
    std::uint32_t price;
    std::uint32_t weight;
};

class Pricing {
public:
    virtual ~Pricing() = default;
    virtual std::uint64_t cost(const Item &item, std::uint32_t qty) const = 0;
};

class Flat : public Pricing {
public:
    std::uint64_t cost(const Item &item, std::uint32_t qty) const override
    {
        return std::uint64_t(item.price) * qty;
    }
};

class Bulk : public Pricing {
public:
    std::uint64_t cost(const Item &item, std::uint32_t qty) const override
    {
        std::uint64_t c = std::uint64_t(item.price) * qty;
        if (qty >= 10)
            c -= c / 8;
        return c + item.weight / 4;
    }
};

template <typename T>
T checksum(const std::vector<T> &values)
{
    T sum = 0;
    for (std::size_t i = 0; i < values.size(); i++)
        sum = sum * 31 + values[i];
    return sum;
}

std::string sku_of(std::uint32_t id)
{
    static const char digits[] = "0123456789ABCDEF";
    std::string s = "SKU-";
    for (int shift = 12; shift >= 0; shift -= 4)
        s += digits[(id >> shift) & 15];
    return s;
}

} // namespace

int main(int argc, char **argv)
{
    long scale = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 100;
    if (scale < 1 || scale > 10000) {
        std::fprintf(stderr, "usage: inventory [SCALE 1..10000]\n");
        return 1;
    }
    std::uint64_t state = 0x9E3779B97F4A7C15u;
    std::vector<Item> items;
    for (std::uint32_t i = 0; i < 4096; i++) {
        std::uint64_t r = next_random(state);
        items.push_back({i, std::uint32_t(r % 1000) + 1,
                         std::uint32_t((r >> 20) % 50) + 1});
    }
    std::vector<std::unique_ptr<Pricing>> rules;
    rules.emplace_back(new Flat);
    rules.emplace_back(new Bulk);

    std::unordered_map<std::string, std::uint64_t> sold;
    std::vector<std::uint64_t> totals;
    std::vector<std::uint32_t> ids;
    long rounds = 30 * scale;
    for (long round = 0; round < rounds; round++) {
        std::uint64_t total = 0;
        for (int order = 0; order < 400; order++) {
            std::uint64_t r = next_random(state);
            const Item &item = items[r % items.size()];
            std::uint32_t qty = std::uint32_t((r >> 32) % 16) + 1;
            const Pricing &rule = *rules[(r >> 40) % 8 == 0];
            total += rule.cost(item, qty);
            if (order % 16 == 0)
                sold[sku_of(item.id)] += qty;
        }
        totals.push_back(total);
        std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
            return a.price != b.price ? a.price < b.price : a.id < b.id;
        });
        items[round % items.size()].price = std::uint32_t(total % 1000) + 1;
    }
    for (const Item &item : items)
        ids.push_back(item.id);
    std::uint64_t units = 0;
    for (const auto &entry : sold)
        units += entry.second;
    std::printf("rounds %ld, skus %zu, units %llu\n", rounds, sold.size(),
                (unsigned long long) units);
    std::printf("checksums %llu %u\n",
                (unsigned long long) checksum(totals), checksum(ids));
    return 0;
}
