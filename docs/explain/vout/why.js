var BROOK_WHY=[];
