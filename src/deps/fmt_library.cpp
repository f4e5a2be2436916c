// fmt's compiled part (what libfmt.so holds), compiled here once from the headers
// Debian's libfmt-dev ships, so that no gpukill program loads libfmt.so at start-up
// (cmake/StaticDeps.cmake says why). fmt's headers declare these functions and leave
// their definitions to format-inl.h; the templates they declare there (the shortest
// decimal form of a float, the locale a format uses, the thousands separator and the
// decimal point) are instantiated below for the types the headers use them with. fmt's
// header-only mode would give the same without this file, at two to three seconds more
// compilation for every source file that includes fmt (measured at -O3), which CI cannot
// afford.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;

template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template auto decimal_point_impl(locale_ref) -> char;
template auto decimal_point_impl(locale_ref) -> wchar_t;

}  // namespace detail
FMT_END_NAMESPACE
