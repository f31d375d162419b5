module ringtrace/tools/gogen

go 1.19
