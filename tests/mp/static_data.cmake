# The static region (the program's global and static variables) through
# the native API, and the calls that refuse it.
tern_mp_test(NAME static_data SOURCES static_data.c RANKS 1 2 3 4)
