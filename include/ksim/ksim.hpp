#pragma once
// ksim as a library: load a scenario, run it in phases, assert on its report.
// See examples/ and README.md ("In your own tests").
#include "ksim/cluster.hpp"
#include "ksim/invariant.hpp"
#include "ksim/report.hpp"
#include "ksim/scenario.hpp"
