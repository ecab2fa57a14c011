// The two readers of a case file's YAML into a yaml::Document (case_loader.cpp
// uses both). The checked reader is the definition: yaml-cpp, bounded. The
// fast reader is libyaml, taken only where it builds the same tree; what it
// does not vouch for, and any file the loader then refuses, is read again by
// the checked reader, so that what is refused, and every message, is the
// checked reader's.
#pragma once

#include <string>

#include "kiln/conformance/yaml_document.hpp"

namespace kiln::conformance::case_yaml {

// True when libyaml read the whole file into document and the file keeps to
// the YAML that yaml-cpp reads to the same tree (case_yaml.cpp says which);
// false when the caller must use read_checked instead (document is then
// partly built: use a fresh one).
bool read_fast(const std::string& text, yaml::Document& document);

// yaml-cpp's reading, bounded first by a pass over its events: one document,
// no anchors, aliases or tags, at most kMaxCaseNodes nodes and kMaxCaseDepth
// levels. Throws yaml_reading::Invalid or YAML::Exception at the first
// problem; returns false when the file holds no document.
bool read_checked(const std::string& text, yaml::Document& document);

}  // namespace kiln::conformance::case_yaml
