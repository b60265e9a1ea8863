// The few type traits the track event templates need, so that including
// the macros does not parse <type_traits> (about 4,000 lines) in every file
// that traces.

#ifndef ZT_TRACING_INTERNAL_TYPE_TRAITS_H_
#define ZT_TRACING_INTERNAL_TYPE_TRAITS_H_

namespace zt {
namespace internal {

template <typename T> struct RemoveCvRefImpl { using type = T; };
template <typename T> struct RemoveCvRefImpl<const T> { using type = T; };
template <typename T> struct RemoveCvRefImpl<volatile T> { using type = T; };
template <typename T> struct RemoveCvRefImpl<const volatile T> { using type = T; };
template <typename T> struct RemoveCvRefImpl<T&> : RemoveCvRefImpl<T> {};
template <typename T> struct RemoveCvRefImpl<T&&> : RemoveCvRefImpl<T> {};
template <typename T> using RemoveCvRef = typename RemoveCvRefImpl<T>::type;

template <typename T> struct RemoveRefImpl { using type = T; };
template <typename T> struct RemoveRefImpl<T&> { using type = T; };
template <typename T> struct RemoveRefImpl<T&&> { using type = T; };
template <typename T> using RemoveRef = typename RemoveRefImpl<T>::type;

template <typename T> struct MakeVoid { using type = void; };
template <typename T> using VoidT = typename MakeVoid<T>::type;

template <typename T> T&& DeclVal();

template <typename A, typename B> struct IsSame { static constexpr bool value = false; };
template <typename A> struct IsSame<A, A> { static constexpr bool value = true; };

// 1: signed integer, 2: unsigned integer (bool and char types excluded
// where they are not numbers: char counts as a number, as in printf).
template <typename T> struct IntegerKind { static constexpr int value = 0; };
template <> struct IntegerKind<char> { static constexpr int value = static_cast<char>(-1) < 0 ? 1 : 2; };
template <> struct IntegerKind<signed char> { static constexpr int value = 1; };
template <> struct IntegerKind<short> { static constexpr int value = 1; };
template <> struct IntegerKind<int> { static constexpr int value = 1; };
template <> struct IntegerKind<long> { static constexpr int value = 1; };
template <> struct IntegerKind<long long> { static constexpr int value = 1; };
template <> struct IntegerKind<unsigned char> { static constexpr int value = 2; };
template <> struct IntegerKind<unsigned short> { static constexpr int value = 2; };
template <> struct IntegerKind<unsigned int> { static constexpr int value = 2; };
template <> struct IntegerKind<unsigned long> { static constexpr int value = 2; };
template <> struct IntegerKind<unsigned long long> { static constexpr int value = 2; };

template <typename T> struct IsFloat { static constexpr bool value = false; };
template <> struct IsFloat<float> { static constexpr bool value = true; };
template <> struct IsFloat<double> { static constexpr bool value = true; };
template <> struct IsFloat<long double> { static constexpr bool value = true; };

template <typename T> struct IsPointer { static constexpr bool value = false; };
template <typename T> struct IsPointer<T*> { static constexpr bool value = true; };

template <typename T> struct IsCharArray { static constexpr bool value = false; };
template <decltype(sizeof(0)) N> struct IsCharArray<char[N]> { static constexpr bool value = true; };
template <decltype(sizeof(0)) N> struct IsCharArray<const char[N]> { static constexpr bool value = true; };

template <typename T> struct IsConstCharArray { static constexpr bool value = false; };
template <decltype(sizeof(0)) N> struct IsConstCharArray<const char[N]> { static constexpr bool value = true; };

// Has data() and size(), like std::string and std::string_view.
template <typename T, typename = void> struct IsStringLike { static constexpr bool value = false; };
template <typename T>
struct IsStringLike<T, VoidT<decltype(DeclVal<const T&>().data() + DeclVal<const T&>().size())>> {
  static constexpr bool value = true;
};

template <bool B, typename T, typename F> struct ConditionalImpl { using type = T; };
template <typename T, typename F> struct ConditionalImpl<false, T, F> { using type = F; };
template <bool B, typename T, typename F>
using Conditional = typename ConditionalImpl<B, T, F>::type;

template <bool B, typename T = void> struct EnableIfImpl {};
template <typename T> struct EnableIfImpl<true, T> { using type = T; };
template <bool B, typename T = void>
using EnableIf = typename EnableIfImpl<B, T>::type;

template <typename T> struct IsArray { static constexpr bool value = false; };
template <typename T, decltype(sizeof(0)) N> struct IsArray<T[N]> { static constexpr bool value = true; };

template <typename T> struct IsClass { static constexpr bool value = __is_class(T); };

template <typename T> struct AlwaysFalse { static constexpr bool value = false; };

}  // namespace internal
}  // namespace zt

#endif  // ZT_TRACING_INTERNAL_TYPE_TRAITS_H_
