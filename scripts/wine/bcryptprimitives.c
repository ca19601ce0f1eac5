/*
 * A stand-in bcryptprimitives.dll for Wine 8, which has none. Go >= 1.24's
 * Windows runtime loads ProcessPrng from it at start and aborts without it.
 * ProcessPrng fills a buffer with random bytes and always succeeds;
 * advapi32's SystemFunction036 (RtlGenRandom), which Wine has, does the work.
 * Test lane only (scripts/wine/test-windows.sh): never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	/* SystemFunction036 takes a ULONG: feed it in pieces. */
	while (length > 0) {
		ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		length -= n;
	}
	return TRUE;
}
