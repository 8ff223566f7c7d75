/*
 * A stand-in for Windows' bcryptprimitives.dll, which Debian 12's Wine 8
 * lacks: Go's runtime (1.22 and later) takes its random bytes from
 * ProcessPrng there, and a Go program dies at start without it. This one
 * forwards to advapi32's SystemFunction036 (RtlGenRandom), which Wine has.
 * Built with Debian's gcc-mingw-w64-x86-64-win32 by scripts/wine-smoke.sh.
 */
#include <windows.h>

typedef BOOLEAN(WINAPI *gen_random)(PVOID, ULONG);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	static gen_random gen;
	if (!gen) {
		HMODULE advapi = LoadLibraryA("advapi32.dll");
		gen = advapi ? (gen_random)GetProcAddress(advapi, "SystemFunction036") : NULL;
	}
	while (len > 0) {
		ULONG n = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
		if (!gen || !gen(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
