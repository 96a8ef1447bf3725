#include "cna/version.h"

const char *cna_version(void)
{
    return CNA_VERSION_STRING;
}
