// Must not compile: report/ does not link the store, so its headers are out of its reach.
#include "store/store.h"
