// Compiles every public header (through the umbrella cna/cna.h) as C++ and
// calls a few functions through them, so extern "C" linkage is checked too.
#include "cna/cna.h"

#include <cstring>

int main()
{
    cna_mat4 m;
    cna_mat4_identity(&m);
    if (!cna_mat4_is_identity(&m)) return 1;
    if (std::strcmp(cna_result_name(CNA_ERROR_LIMIT), "limit") != 0) return 2;
    if (std::strcmp(cna_version(), CNA_VERSION_STRING) != 0) return 3;
    return 0;
}
