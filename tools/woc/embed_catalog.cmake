# Turns common/explain.md into a C++ source (the catalog woc explain shows),
# so an installed woc needs no source tree. Run by CMake with -DIN= -DOUT=.
file(READ ${IN} _text)
set(_delim "WOEXPLAIN")
string(FIND "${_text}" ")${_delim}\"" _clash)
if(NOT _clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter )${_delim}\"")
endif()
file(WRITE ${OUT}.tmp "// Generated from common/explain.md by tools/woc/embed_catalog.cmake.\n"
     "namespace wo::driver {\nextern const char* const kExplainCatalog;\n"
     "const char* const kExplainCatalog = R\"${_delim}(${_text})${_delim}\";\n}\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
