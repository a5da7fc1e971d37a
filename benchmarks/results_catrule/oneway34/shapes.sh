# The seen synthetic categorical shapes (every earlier study's: allocation_study SHAPES without the binary ones,
# select_study GEO, pubrule_study NEW, stein31 D / E, stein32 F / G, tau33 H); sourced by the scripts here.
SEEN="cat8-m2k cat8-m30k cat6-wide-m5k cat8x5-m500 cat10-m300 cat9-wide-m1k cat6-wide-m2k tit6-m1k tit6-skew-m1k
 tit6-m5k adl7-m10k adl7-skew-m50k tit9-skew-m1k tit9-m1k
 tit9-geo-m1k cat9-geo-m1k tit9-geo2-m1k tit6-geo-m1k adl7-geo-m10k cat6-geo-m2k cat10-geo-m300
 tit9-geo3-m2k adl7-geo-m3k tit9-a03-m1k cat8-m400 cat12-m600 cat8-geo-m500 tit9-geo4-m800 tit9-a1-m2k cat9-a03-m1k
 tit9-geo5-m1k tit9-a05-m1k cat7-geo-m1500 cat7-m1500 adl9-m4k adl9-geo-m4k cat8-a2-m800
 D:d-small-m500 D:d-mix-m900 D:d-flat-m700 D:d-a03-m2500 D:d-wide-m1200 D:g-m600 D:g-m1800 D:g-m350 D:g-m5k D:g-a1-m1k
 E:e-bin-m450 E:e-mix-m800 E:e-flat-m1k E:e-a04-m3k E:e-geo-m400 E:e-geo-m1300 E:e-geo-m2500 E:e-geo-m700
 F:f-dir-m1500 F:f-dir-m3500 F:f-flat-m900 F:f-dir-m6k F:f-geo-m1100 F:f-geo-m2200 F:f-geo-m4500 F:f-geo-m650
 F:f-skew-m2k F:f-geo-skew-m1500
 G:g-dir-m2500 G:g-dir-m800 G:g-flat-m1800 G:g-skew-m3k G:g-skew-m1k G:g-geo-m1600 G:g-geo-m5k G:g-geo-skew-m2k
 H:h-tit-m1200 H:h-tit-geo-m1500 H:h-tit-skew-m1800 H:h-tit-geo-skew-m1k H:h-skew-m2500 H:h-dir-m700 H:h-flat-m1300
 H:h-geo-m3k H:h-dir-m8k H:h-geo-m450"
