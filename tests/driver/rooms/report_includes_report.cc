// Compiles: a room reaches its own headers and those of the rooms it links.
#include "plans/loop_decision.h"
#include "report/model.h"
