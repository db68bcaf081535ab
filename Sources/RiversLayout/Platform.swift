// `Double.rounded()` lowers to the C math library's `round` on Linux; importing the C library makes
// the module link libm itself, so any executable using RiversLayout links without extra settings.
// (No Foundation: the engine needs nothing else.)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
