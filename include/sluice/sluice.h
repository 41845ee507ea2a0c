// Everything a user of the C++ API needs.
#pragma once

#include "sluice/column.h"
#include "sluice/dataframe.h"
#include "sluice/memory_stream.h"
#include "sluice/session.h"
#include "sluice/status.h"
#include "sluice/query_manager.h"
#include "sluice/listener.h"
#include "sluice/logging.h"
#include "sluice/streaming_query.h"
#include "sluice/trigger.h"
